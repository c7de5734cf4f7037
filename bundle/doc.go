// Package bundle is the Python DAOKit's release evidence bundle, ported
// so that daokit and the Python tool make, review and re-verify the same
// bundles: the same layout (the final-run report folder copied under
// <bundle-root>/docs/reports/final-run), the same summary fields, the
// same sha256 hashes and reproducibility digest, the same verdicts.
//
// Where the Python tool crashes (a copy that fails half-way, a manifest
// that is not UTF-8, a bundle written over its own source), this package
// returns an *Error instead, and a failed copy leaves the previous bundle
// in place rather than half of a new one.
package bundle
