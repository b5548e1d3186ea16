-- wrk script: POST the file named by $BODY (default testdata/post.data) as a
-- form-encoded bid request, and count the answers by status.
local f = assert(io.open(os.getenv("BODY") or "testdata/post.data", "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
