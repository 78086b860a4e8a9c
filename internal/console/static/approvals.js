"use strict";
// Questions from ttymux servers: held commands to approve or decline, and
// secrets to type. Everything shown is text (textContent), made visible by
// the server; a secret typed here is sent once and cleared, never shown.
(function () {
  const box = document.getElementById("holds");
  const status = document.getElementById("status");
  const shown = new Map(); // id -> element, so a typed secret survives updates

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function answer(id, body, card) {
    card.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    return fetch("/api/holds/" + encodeURIComponent(id), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => {
      if (!r.ok) return r.text().then((t) => { throw new Error(t.trim() || r.statusText); });
      card.classList.add("answered");
      status.textContent = body.decision === "approve" ? "approved" : "declined";
    }).catch((e) => {
      status.textContent = String(e.message || e);
      card.querySelectorAll("button").forEach((b) => { b.disabled = false; });
    });
  }
  function card(h) {
    const c = el("section", "hold " + h.kind);
    c.dataset.id = h.id;
    if (h.kind === "secret") {
      c.appendChild(el("h2", null, "A secret to type"));
      c.appendChild(el("p", "what", h.prompt));
      if (h.asked) {
        const q = el("p", "asked");
        q.append("The AI's words: ", el("q", null, h.asked));
        c.appendChild(q);
      }
      const f = el("form", "secret");
      f.autocomplete = "off";
      const inp = el("input");
      inp.type = "password";
      inp.name = "secret";
      inp.autocomplete = "new-password";
      inp.setAttribute("aria-label", "secret");
      const ok = el("button", "primary approve", "Type it into the session");
      ok.type = "submit";
      const no = el("button", "decline", "Decline");
      no.type = "button";
      f.append(inp, " ", ok, " ", no);
      f.addEventListener("submit", (e) => {
        e.preventDefault();
        const v = inp.value;
        inp.value = "";
        answer(h.id, { decision: "approve", secret: v }, c);
      });
      no.addEventListener("click", () => { inp.value = ""; answer(h.id, { decision: "decline" }, c); });
      c.appendChild(f);
      c.appendChild(el("p", "note", "It goes straight into the terminal, followed by Enter. The AI never sees it."));
    } else {
      c.appendChild(el("h2", null, "The AI wants to run a command that was held for your approval"));
      c.appendChild(el("pre", "command", h.secret ? "(secret text; not shown)" : h.command));
      const dl = el("dl");
      dl.append(el("dt", null, "Where"), el("dd", "where", h.where || ((h.session ? "session " + h.session + " on " : "") + h.host)));
      dl.append(el("dt", null, h.reasons.length > 1 ? "Held because" : "Held because"));
      const dd = el("dd");
      const ul = el("ul", "reasons");
      for (const r of h.reasons) ul.appendChild(el("li", null, r));
      dd.appendChild(ul);
      dl.append(dd);
      dl.append(el("dt", null, "Waits until"), el("dd", null, new Date(h.deadline).toLocaleTimeString() + " (then it is refused)"));
      c.appendChild(dl);
      const ok = el("button", "primary approve", "Approve: run it");
      const no = el("button", "decline", "Decline");
      ok.addEventListener("click", () => answer(h.id, { decision: "approve" }, c));
      no.addEventListener("click", () => answer(h.id, { decision: "decline" }, c));
      const p = el("p", "buttons");
      p.append(ok, " ", no);
      c.appendChild(p);
    }
    return c;
  }
  function render(list) {
    const ids = new Set(list.map((h) => h.id));
    for (const [id, e] of shown) if (!ids.has(id)) { e.remove(); shown.delete(id); }
    for (const h of list) {
      if (shown.has(h.id)) continue;
      const c = card(h);
      shown.set(h.id, c);
      box.appendChild(c);
    }
    document.getElementById("empty").hidden = list.length !== 0;
  }
  const es = new EventSource("/api/holds/events");
  es.addEventListener("holds", (e) => { status.textContent = "live"; render(JSON.parse(e.data) || []); });
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) {
      // The endpoint refused: this console takes no questions (only
      // ttymux web does, and one at a time).
      status.textContent = "this console takes no questions";
      document.getElementById("empty").textContent = "This console takes no questions: held commands and secret prompts come to the console started with ttymux web (one at a time; its output says why when it cannot).";
      return;
    }
    status.textContent = "reconnecting…";
  };
})();
