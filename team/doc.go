// Package team reads workflow.toml, the project's description of its role
// Leads (seed 003): the roles, each role's repo or working folder
// (role_repo), the roles each depends on, the soft group caps
// ([groups.<name>] max_concurrent), the outbox backend and the project
// memory folder. With daokit.toml's hard caps (config.Team) it gives each
// role its effective Worker limit, min(soft, hard).
//
// Every problem is an *Error with a stable Code and the key it is about,
// rendered in the reader's language by Localize: an unknown role, a cycle
// in depends_on and a cap out of range each give one clear message.
package team
