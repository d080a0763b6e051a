# doc/admin-guide.md's marked blocks, for the tests that run them (sourced).
#
#   guide_block GUIDE NAME   prints the fenced block right after the line
#                            `<!-- guide-test: NAME -->` (the marker, then the
#                            block's opening fence on the next line); exit 1
#                            when there is no such block
guide_block() {
	awk -v name="$2" '
		$0 == "<!-- guide-test: " name " -->" { mark = 1; next }
		mark == 1 && /^```/ { mark = 2; found = 1; next }
		mark == 1 { exit 1 }
		mark == 2 && /^```/ { exit }
		mark == 2 { print }
		END { if (!found) exit 1 }' "$1"
}
