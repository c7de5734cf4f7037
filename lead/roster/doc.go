// Package roster is the team as its Leads publish it: each role's Lead
// status and exit, its Workers, the labels and addresses a Lead manages,
// and the view of roles and issues read from the outbox and the status
// files. It runs nothing: the window, daokit status and the controller
// read the team through it, and package lead, which runs the Leads and
// their Workers, writes what it reads.
package roster
