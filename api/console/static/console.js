// dspd console: small enhancements; every page works without them.
"use strict";
document.addEventListener("keydown", function (e) {
  // "/" jumps to the search box, as in many tools.
  if (e.key === "/" && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName)) {
    var q = document.getElementById("q");
    if (q) { e.preventDefault(); q.focus(); q.select(); }
  }
});
document.addEventListener("DOMContentLoaded", function () {
  // The filters apply as the status changes.
  var s = document.getElementById("status");
  if (s && s.form) { s.addEventListener("change", function () { s.form.submit(); }); }
  // A field with a problem takes the focus, so that a keyboard user lands on it.
  var bad = document.querySelector("[aria-invalid=true]");
  if (bad) { bad.focus(); }
});
