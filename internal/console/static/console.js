"use strict";
// The session list, kept live by the server's event stream.
(function () {
  const tbody = document.querySelector("#sessions tbody");
  const status = document.getElementById("status");
  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }
  function age(iso) {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m";
    return Math.floor(s / 3600) + "h" + Math.floor((s % 3600) / 60) + "m";
  }
  function render(list) {
    tbody.textContent = "";
    document.getElementById("sessions").hidden = list.length === 0;
    document.getElementById("empty").hidden = list.length !== 0;
    // Who holds each session: ttymux web's sessions come from the agent
    // and from every ttymux mcp server.
    const anyServer = list.some((s) => s.server);
    document.getElementById("th-server").hidden = !anyServer;
    // The agent does not say when its sessions last printed.
    const anyIdle = list.some((s) => s.last_output);
    document.getElementById("th-idle").hidden = !anyIdle;
    for (const s of list) {
      const tr = document.createElement("tr");
      tr.dataset.id = s.id;
      const td = document.createElement("td");
      const a = document.createElement("a");
      a.href = "/s/" + encodeURIComponent(s.id);
      a.textContent = s.name ? s.name + " (" + s.id + ")" : s.id;
      td.appendChild(a);
      if (s.driven) {
        const b = document.createElement("span");
        b.className = "badge driven";
        b.textContent = "a person is typing";
        td.append(" ", b);
      }
      tr.appendChild(td);
      cell(tr, s.transport);
      cell(tr, s.host || "this machine");
      cell(tr, s.state);
      cell(tr, s.foreground || "");
      cell(tr, s.last_output ? age(s.last_output) : "", "idle").hidden = !anyIdle;
      cell(tr, age(s.created), "age");
      cell(tr, s.cols + "×" + s.rows);
      cell(tr, s.server || "", "server").hidden = !anyServer;
      cell(tr, s.command, "cmd").title = s.command;
      tbody.appendChild(tr);
    }
  }
  const notice = document.getElementById("notice");
  const es = new EventSource("/api/events");
  // What the list is missing (the agent failed to list its sessions):
  // the rows it has still show, under this notice.
  es.addEventListener("notice", (e) => {
    const v = JSON.parse(e.data);
    notice.textContent = v || "";
    notice.hidden = !v;
  });
  es.addEventListener("sessions", (e) => {
    const v = JSON.parse(e.data);
    if (v && v.error) { status.textContent = "agent: " + v.error; return; }
    status.textContent = "live";
    render(v || []);
  });
  es.onerror = () => { status.textContent = "reconnecting…"; };
})();
