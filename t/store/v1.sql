-- A store as attrib 0.1.0's first service wrote it: schema version 1
-- (results, comment_queue), the schema text of service/store.c at commit
-- 397ee0e (git show 397ee0e:service/store.c), with data as that service
-- stored it.  Job 103's result is damaged (not JSON): the upgrade keeps it.
-- Read by t/store-migrate.c.
PRAGMA user_version=1;
CREATE TABLE IF NOT EXISTS results( job_id TEXT NOT NULL, attempt INTEGER NOT NULL, cluster TEXT, user TEXT, state TEXT, sub_domain TEXT, culprits TEXT, root_code TEXT, created INTEGER NOT NULL, result_json TEXT NOT NULL, PRIMARY KEY(job_id, attempt));
CREATE INDEX IF NOT EXISTS results_created ON results(created);
CREATE TABLE IF NOT EXISTS comment_queue( job_id TEXT NOT NULL, attempt INTEGER NOT NULL, text TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, next_try INTEGER NOT NULL, done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(job_id, attempt));
CREATE INDEX IF NOT EXISTS comment_queue_due ON comment_queue(done, next_try);
INSERT INTO results VALUES('101',0,'cl','alice','FAILED','InfraHW','node-02','xid.149',1795939981,'{"schema":"attrib.result/v1","job_id":"101","attempt":0,"end_time":"2026-11-29T08:12:01Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-02"],"affected_nodes":["node-02","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-02"},"actions":[{"action":"drain","node":"node-02"}]}');
INSERT INTO results VALUES('101',1,'cl','alice','FAILED','InfraHW','node-03','xid.149',1795942860,'{"schema":"attrib.result/v1","job_id":"101","attempt":1,"end_time":"2026-11-29T09:00:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-03"],"affected_nodes":["node-03","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-03"},"actions":[{"action":"drain","node":"node-03"}]}');
INSERT INTO results VALUES('102',0,'cl','alice','FAILED','InfraHW','node-04','xid.149',1795948260,'{"schema":"attrib.result/v1","job_id":"102","attempt":0,"end_time":"2026-11-29T10:30:00Z","outcome":"attributed","domain":"infra","sub_domain":"InfraHW","culprit_nodes":["node-04"],"affected_nodes":["node-04","node-09"],"root_cause":{"code":"xid.149","symptom":"NVLink error","node":"node-04"},"actions":[{"action":"drain","node":"node-04"}]}');
INSERT INTO results VALUES('103',0,NULL,NULL,'FAILED',NULL,NULL,NULL,1796036000,'not json {');
INSERT INTO comment_queue VALUES('101',0,'attrib: InfraHW node-02 xid.149 [NVLink error]',0,1795939981,1);
INSERT INTO comment_queue VALUES('101',1,'attrib: InfraHW node-03 xid.149 [NVLink error]',3,1796035999,0);
INSERT INTO comment_queue VALUES('102',0,'attrib: InfraHW node-04 xid.149 [NVLink error]',0,1795948260,0);
