// The dashboard's only script: it swaps in the live part of the page the
// server renders on every ledger change (server-sent events), and posts
// the input's instruction for the server to forward to the controller.
// All text comes from the server, in the page's language.
(function () {
  "use strict";
  var body = document.body;
  var live = document.getElementById("live");
  var conn = document.getElementById("conn");

  // The heartbeat's age grows while nothing is written: the page counts
  // it, and says when a file that still says RUNNING is past a
  // threshold (its writer may be gone), as the window does.
  function span(seconds) {
    var s = Math.floor(seconds);
    if (s < 60) {
      return s + "s";
    }
    var m = Math.floor(s / 60);
    if (m < 60) {
      return m + "m" + String(s % 60).padStart(2, "0") + "s";
    }
    return Math.floor(m / 60) + "h" + String(m % 60).padStart(2, "0") + "m";
  }
  function heartbeatAge() {
    var el = document.getElementById("hb-age");
    if (!el) {
      return;
    }
    var age = Math.max(0, (Date.now() - Number(el.dataset.at)) / 1000);
    var text = body.dataset.age.replace("{age}", span(age));
    var tone = "age";
    if (el.dataset.running === "true") {
      var warning = Number(el.dataset.warning), stale = Number(el.dataset.stale);
      if (stale > 0 && age >= stale) {
        text += " · " + body.dataset.overStale;
        tone = "age bad";
      } else if (warning > 0 && age >= warning) {
        text += " · " + body.dataset.overWarning;
        tone = "age warn";
      }
    }
    el.textContent = text;
    el.className = tone;
  }
  heartbeatAge();
  setInterval(heartbeatAge, 1000);

  var stream = new EventSource(body.dataset.events);
  stream.addEventListener("ledger", function (e) {
    live.innerHTML = e.data; // rendered and escaped by html/template
    live.dataset.version = e.lastEventId;
    heartbeatAge();
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
