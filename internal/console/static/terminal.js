"use strict";
// One session's live terminal: read-only until the person takes it over.
(function () {
  const id = decodeURIComponent(location.pathname.replace(/^\/s\//, ""));
  const page = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  const status = document.getElementById("status");
  const mode = document.getElementById("mode");
  const take = document.getElementById("take");
  const give = document.getElementById("give");
  document.getElementById("title").textContent = id;
  document.title = id + " — ttymux";

  const term = new Terminal({ scrollback: 5000, disableStdin: true, cursorBlink: false, fontSize: 14 });
  const fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(document.getElementById("term"));
  window.ttymuxTerm = term; // for tests and the curious

  let driving = false;
  let sessionSize = null; // the size the session had when taken over
  const api = (path, body) =>
    fetch("/api/s/" + encodeURIComponent(id) + path, {
      method: "POST",
      headers: { "X-Ttymux-Page": page },
      body: body,
    }).then((r) => {
      if (!r.ok) return r.text().then((t) => { throw new Error(t.trim() || r.statusText); });
      return r;
    });

  // Keystrokes go out in order, one request at a time.
  let queue = Promise.resolve();
  term.onData((d) => {
    if (!driving) return;
    queue = queue.then(() => api("/input", new TextEncoder().encode(d))).catch((e) => { status.textContent = String(e.message || e); });
  });
  term.onBinary((d) => {
    if (!driving) return;
    const b = Uint8Array.from(d, (c) => c.charCodeAt(0) & 255);
    queue = queue.then(() => api("/input", b)).catch((e) => { status.textContent = String(e.message || e); });
  });

  function sendSize() {
    if (!driving) return;
    fit.fit();
    api("/resize", JSON.stringify({ rows: term.rows, cols: term.cols })).catch(() => {});
  }
  window.addEventListener("resize", sendSize);

  take.onclick = () => {
    api("/takeover").then(() => {
      driving = true;
      sessionSize = { rows: term.rows, cols: term.cols };
      term.options.disableStdin = false;
      take.hidden = true; give.hidden = false;
      mode.textContent = "you are typing: the AI sees what you typed in its next result";
      mode.className = "mode driving";
      sendSize();
      term.focus();
    }).catch((e) => { status.textContent = String(e.message || e); });
  };
  give.onclick = () => {
    const size = sessionSize;
    const back = size ? api("/resize", JSON.stringify(size)).catch(() => {}) : Promise.resolve();
    back.then(() => api("/giveback")).finally(() => {
      driving = false;
      term.options.disableStdin = true;
      if (size) term.resize(size.cols, size.rows);
      take.hidden = false; give.hidden = true;
      mode.textContent = "watching (read-only)";
      mode.className = "mode";
    });
  };

  const es = new EventSource("/api/s/" + encodeURIComponent(id) + "/output");
  es.addEventListener("info", (e) => {
    const v = JSON.parse(e.data);
    if (!driving && v.cols > 0 && v.rows > 0) term.resize(v.cols, v.rows);
    term.reset();
    status.textContent = "live";
  });
  es.onmessage = (e) => {
    const bin = atob(e.data);
    const b = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
    term.write(b);
  };
  es.addEventListener("note", (e) => { status.textContent = e.data; });
  es.addEventListener("end", (e) => { status.textContent = e.data; es.close(); });
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) status.textContent = "reconnecting…"; };
})();
