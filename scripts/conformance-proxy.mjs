// A loopback reverse proxy that adds the bearer token to every request, for
// the MCP conformance suite, which cannot send headers of its own
// (scripts/conformance.sh). Usage: node conformance-proxy.mjs UPSTREAM_ORIGIN TOKEN_FILE
// It listens on 127.0.0.1 (a free port), prints "listening PORT" and streams
// request and response bodies through untouched (SSE included).
import http from "node:http";
import fs from "node:fs";

const [upstream, tokenFile] = process.argv.slice(2);
if (!upstream || !tokenFile) {
  console.error("usage: conformance-proxy.mjs UPSTREAM_ORIGIN TOKEN_FILE");
  process.exit(2);
}
const token = fs.readFileSync(tokenFile, "utf8").trim();
const up = new URL(upstream);

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  // The suite's DNS-rebinding check sends its own Host: pass it on as sent.
  const preq = http.request(
    { host: up.hostname, port: up.port, method: req.method, path: req.url, headers },
    (pres) => {
      res.writeHead(pres.statusCode, pres.statusMessage, pres.rawHeaders);
      res.flushHeaders();
      pres.pipe(res);
    },
  );
  preq.on("error", (err) => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
    res.end(`proxy: ${err.message}\n`);
  });
  req.pipe(preq);
  res.on("close", () => preq.destroy());
});
server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
