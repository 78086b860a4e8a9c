"use strict";
// The console's tabs, with the number of questions waiting for the human.
(function () {
  const badge = document.getElementById("holdcount");
  if (!badge) return;
  const es = new EventSource("/api/holds/events");
  es.addEventListener("holds", (e) => {
    const n = (JSON.parse(e.data) || []).length;
    badge.textContent = n ? String(n) : "";
    badge.hidden = n === 0;
    document.title = (n ? "(" + n + ") " : "") + document.title.replace(/^\(\d+\) /, "");
  });
  es.onerror = () => { es.close(); }; // a console without questions: no badge
})();
