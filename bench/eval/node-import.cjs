// Node's own import(), for an ES module that must run exactly as Node loads it: a test runner transforms every
// module its tests import, and the compiled build under test must run untouched.
module.exports = (url) => import(url);
