-- A store of schema version 2 (results, comment_queue, drains): the schema
-- text of service/store.c at commit 72f2040 (attrib drain), with data as
-- that release stored it.  Read by t/store-migrate.c.
PRAGMA user_version=2;
CREATE TABLE IF NOT EXISTS results( job_id TEXT NOT NULL, attempt INTEGER NOT NULL, cluster TEXT, user TEXT, state TEXT, sub_domain TEXT, culprits TEXT, root_code TEXT, created INTEGER NOT NULL, result_json TEXT NOT NULL, PRIMARY KEY(job_id, attempt));
CREATE INDEX IF NOT EXISTS results_created ON results(created);
CREATE TABLE IF NOT EXISTS comment_queue( job_id TEXT NOT NULL, attempt INTEGER NOT NULL, text TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_try INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(job_id, attempt));
CREATE INDEX IF NOT EXISTS comment_queue_due ON comment_queue(done, next_try);
CREATE TABLE IF NOT EXISTS drains( job_id TEXT NOT NULL, attempt INTEGER NOT NULL, node TEXT NOT NULL, reason TEXT NOT NULL, decision TEXT NOT NULL, decided_by TEXT NOT NULL, created INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS drains_created ON drains(created);
INSERT INTO results VALUES('201',0,'cl','alice','FAILED','InfraHW','node-05','xid.149',1796000460,'{"schema":"attrib.result/v1","job_id":"201","attempt":0,"end_time":"2026-11-30T01:00:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-05"],"affected_nodes":["node-05","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-05"},"actions":[{"action":"drain","node":"node-05"}]}');
INSERT INTO results VALUES('202',0,'cl','alice','FAILED','InfraHW','node-06','xid.149',1796004060,'{"schema":"attrib.result/v1","job_id":"202","attempt":0,"end_time":"2026-11-30T02:00:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-06"],"affected_nodes":["node-06","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-06"},"actions":[{"action":"drain","node":"node-06"}]}');
INSERT INTO results VALUES('202',1,'cl','alice','FAILED','InfraHW','node-07','xid.149',1796007660,'{"schema":"attrib.result/v1","job_id":"202","attempt":1,"end_time":"2026-11-30T03:00:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-07"],"affected_nodes":["node-07","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-07"},"actions":[{"action":"drain","node":"node-07"}]}');
INSERT INTO results VALUES('203',0,'cl','alice','FAILED','InfraHW','node-08','xid.149',1796011260,'{"schema":"attrib.result/v1","job_id":"203","attempt":0,"end_time":"2026-11-30T04:00:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-08"],"affected_nodes":["node-08","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-08"},"actions":[{"action":"drain","node":"node-08"}]}');
INSERT INTO comment_queue VALUES('201',0,'attrib: InfraHW node-05 xid.149 [NVLink error]',0,1796000460,1);
INSERT INTO comment_queue VALUES('202',1,'attrib: InfraHW node-07 xid.149 [NVLink error]',1,1796007700,0);
INSERT INTO drains VALUES('201',0,'node-05','attrib: NVLink error (job 201)','drained','attrib drain (uid 0, root)',1796000500);
INSERT INTO drains VALUES('202',1,'node-07','attrib: NVLink error (job 202)','dry-run','attrib drain (uid 0, root)',1796007700);
INSERT INTO drains VALUES('203',0,'-','refusing: the diagnosis is UserCode','refused','attrib drain (uid 0, root)',1796011300);
