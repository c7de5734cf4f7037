// The dashboard's only script: it swaps in the live part of the page the
// server renders on every ledger change (server-sent events), and posts
// the input's instruction for the server to forward to the controller.
// All text comes from the server, in the page's language.
(function () {
  "use strict";
  var body = document.body;
  var live = document.getElementById("live");
  var conn = document.getElementById("conn");

  var stream = new EventSource(body.dataset.events);
  stream.addEventListener("ledger", function (e) {
    live.innerHTML = e.data; // rendered and escaped by html/template
    live.dataset.version = e.lastEventId;
  });
  stream.onopen = function () {
    conn.textContent = body.dataset.live;
    conn.className = "conn up";
  };
  stream.onerror = function () {
    conn.textContent = body.dataset.lost;
    conn.className = "conn down";
  };

  var form = document.getElementById("send");
  if (!form) {
    return; // read-only
  }
  var input = document.getElementById("text");
  var button = document.getElementById("forward");
  var result = document.getElementById("result");
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var text = input.value.trim();
    if (!text) {
      return;
    }
    button.disabled = true;
    result.className = "result";
    fetch(form.action, {
      method: "POST",
      headers: { "Accept": "application/json" },
      body: new URLSearchParams({ text: text })
    }).then(function (r) {
      return r.json();
    }).then(function (a) {
      result.textContent = a.message;
      result.className = a.ok ? "result ok" : "result failed";
      if (a.ok) {
        input.value = "";
      }
    }).catch(function (err) {
      result.textContent = String(err);
      result.className = "result failed";
    }).finally(function () {
      button.disabled = false;
    });
  });
})();
