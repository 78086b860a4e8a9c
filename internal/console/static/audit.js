"use strict";
// The audit log's tail, newest first, live. Text is shown as the server
// made it visible (control characters as \x1b, \n …).
(function () {
  const tbody = document.querySelector("#audit tbody");
  const status = document.getElementById("status");
  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text === undefined || text === null ? "" : String(text);
    if (cls) td.className = cls;
    if (cls === "cmd") td.title = td.textContent;
    tr.appendChild(td);
  }
  function render(rows) {
    tbody.textContent = "";
    document.getElementById("audit").hidden = rows.length === 0;
    document.getElementById("empty").hidden = rows.length !== 0;
    for (const r of rows.slice().reverse()) {
      const tr = document.createElement("tr");
      if (r.bad) { cell(tr, ""); cell(tr, "not a record: " + r.bad, "cmd"); tbody.appendChild(tr); continue; }
      tr.dataset.event = r.event;
      cell(tr, r.seq || "");
      cell(tr, new Date(r.time).toLocaleString());
      cell(tr, r.event);
      cell(tr, r.session);
      cell(tr, r.host);
      cell(tr, r.command, "cmd");
      cell(tr, r.via ? r.decision + " (" + r.via + ")" : r.decision, "decision");
      cell(tr, r.exit_code);
      cell(tr, r.reason, "reason");
      tbody.appendChild(tr);
    }
  }
  const es = new EventSource("/api/audit/events");
  es.addEventListener("audit", (e) => {
    const v = JSON.parse(e.data);
    if (v && v.error) { status.textContent = "audit log: " + v.error; return; }
    status.textContent = "live";
    render(v || []);
  });
  es.onerror = () => { status.textContent = "reconnecting…"; };
})();
