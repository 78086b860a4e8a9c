"use strict";
// Every request that changes something carries the console's CSRF token
// (X-Ttymux-CSRF). The token is read once from /api/csrf, which answers only
// this origin's pages; a page elsewhere cannot read it, so it cannot make the
// browser change anything here even though the browser holds the cookie.
(function () {
  const plain = window.fetch.bind(window);
  let token = null;
  const ready = () => token || (token = plain("/api/csrf", { credentials: "same-origin" })
    .then((r) => r.json())
    .catch(() => { token = null; return {}; }));
  window.fetch = function (input, init) {
    init = init || {};
    const method = (init.method || "GET").toUpperCase();
    if (method === "GET" || method === "HEAD") return plain(input, init);
    return ready().then((t) => {
      const h = new Headers(init.headers || {});
      if (t.header) h.set(t.header, t.csrf);
      return plain(input, Object.assign({}, init, { headers: h, credentials: "same-origin" }));
    });
  };
})();
