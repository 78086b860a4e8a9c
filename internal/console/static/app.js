"use strict";
// The MCP App (ui://ttymux/terminal): one session's live terminal inside
// the conversation, watch-only until the person takes it over. It speaks
// JSON-RPC to the host over postMessage (SEP-1865): ui/initialize, then it
// learns the session from the tool's input or result, follows its output
// by calling the app-only tool terminal_output through the host, and
// types a person's keys with terminal_input while taken over.
(function () {
  const status = document.getElementById("status");
  const term = new Terminal({ scrollback: 2000, disableStdin: true, cursorBlink: false, fontSize: 13, rows: 24, cols: 80 });
  term.open(document.getElementById("term"));
  window.ttymuxTerm = term; // for tests

  let nextId = 1;
  const pending = new Map();
  const post = (m) => window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*");
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    post({ id, method, params });
  });
  let session = null;
  let stopped = false;

  // Take over: the person's keys go to the session, in order, one call at
  // a time; the AI's next result says a person typed.
  const take = document.getElementById("take");
  let driving = false;
  let queue = Promise.resolve();
  const b64 = (bytes) => btoa(Array.from(bytes, (c) => String.fromCharCode(c)).join(""));
  term.onData((d) => {
    if (!driving || !session) return;
    const data = b64(new TextEncoder().encode(d));
    const id = session;
    queue = queue.then(() => request("tools/call", { name: "terminal_input", arguments: { session_id: id, data } }))
      .then((r) => { if (r && r.isError) throw new Error((r.content && r.content[0] && r.content[0].text) || "error"); })
      .catch((e) => { status.textContent = id + " · " + (e.message || e); });
  });
  take.onclick = () => {
    driving = !driving;
    term.options.disableStdin = !driving;
    take.textContent = driving ? "Give back" : "Take over";
    status.textContent = session + (driving ? " · you are typing: the AI sees it in its next result" : " · watching (read-only)");
    if (driving) term.focus();
  };
  window.ttymuxTake = () => take.click(); // for tests

  window.addEventListener("message", (ev) => {
    if (ev.source !== window.parent) return;
    const m = ev.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.id !== undefined && !m.method) {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message || "error")); else p.resolve(m.result);
      return;
    }
    switch (m.method) {
      case "ui/notifications/tool-input":
        follow(m.params && m.params.arguments && m.params.arguments.session_id);
        break;
      case "ui/notifications/tool-result":
        follow(m.params && m.params.structuredContent && m.params.structuredContent.session_id);
        break;
      case "ui/resource-teardown":
        stopped = true;
        post({ id: m.id, result: {} });
        break;
      default:
        if (m.id !== undefined && m.method) post({ id: m.id, result: {} }); // ping and the like
    }
  });

  const decode = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

  async function follow(id) {
    if (!id || id === session) return;
    session = id;
    status.textContent = id + " · watching (read-only)";
    let from = -1;
    while (!stopped && session === id) {
      let r;
      try {
        r = await request("tools/call", { name: "terminal_output", arguments: { session_id: id, from_offset: from, wait_ms: 10000 } });
      } catch (e) {
        status.textContent = id + " · " + (e.message || e);
        return;
      }
      const o = (r && r.structuredContent) || {};
      if (r && r.isError) {
        status.textContent = id + " · " + ((r.content && r.content[0] && r.content[0].text) || "error");
        return;
      }
      if (o.rows && o.cols && (o.rows !== term.rows || o.cols !== term.cols)) term.resize(o.cols, o.rows);
      if (o.data) term.write(decode(o.data));
      from = o.next_offset;
      if (o.ended) {
        status.textContent = id + " · ended";
        return;
      }
    }
  }

  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: { name: "ttymux terminal", version: "1" },
    appCapabilities: { availableDisplayModes: ["inline"] },
  }).then(() => {
    post({ method: "ui/notifications/initialized", params: {} });
    const el = document.documentElement;
    post({ method: "ui/notifications/size-changed", params: { width: el.scrollWidth, height: el.scrollHeight } });
  }).catch((e) => { status.textContent = String(e.message || e); });
})();
