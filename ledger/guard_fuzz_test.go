package ledger

import (
	"fmt"
	"testing"
)

// FuzzLeaseMerge interleaves a controller's register writes with another
// writer's saves of process_leases.json (adding records, changing its
// own, changing the controller's) as ops bytes say. After every
// controller write the file holds every record either writer made, the
// other writer's latest version of the records only it changed since,
// and the controller's version of the records it changed in that write.
func FuzzLeaseMerge(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 3, 0, 4, 0})
	f.Add([]byte{1, 1, 2, 0, 5, 0, 3, 3, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 40 {
			ops = ops[:40]
		}
		root := initRoot(t)
		s := openStore(t, root)
		ours := NewLeases(testNow)
		var foreign []string               // tokens the other writer added
		lastForeign := map[string]string{} // token → status the other writer last gave it
		written := map[string]string{}     // token → status of the controller's last write
		n := 0
		status := func(i int) string { return []string{LeaseActive, LeaseReleased, LeaseExpired}[i%3] }
		for _, op := range ops {
			n++
			switch op % 6 {
			case 0: // the controller writes its register
				// What it changed since its last write (a change undone
				// since is no change: the register is as it was).
				changedByUs := map[string]bool{}
				for _, l := range ours.Leases {
					if st, ok := written[l.LeaseToken]; !ok || st != l.Status {
						changedByUs[l.LeaseToken] = true
					}
				}
				if _, err := s.WriteLeases(ours); err != nil {
					t.Fatalf("write: %v", err)
				}
				file, err := ParseLeases(readFile(t, statePath(root, LeasesFile)))
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, l := range file.Leases {
					if _, dup := got[l.LeaseToken]; dup {
						t.Fatalf("token %s twice", l.LeaseToken)
					}
					got[l.LeaseToken] = l.Status
				}
				for _, l := range ours.Leases {
					if _, ok := got[l.LeaseToken]; !ok {
						t.Fatalf("the controller's %s is missing", l.LeaseToken)
					}
					if changedByUs[l.LeaseToken] && got[l.LeaseToken] != l.Status {
						t.Fatalf("the controller's change of %s lost: %s, want %s", l.LeaseToken, got[l.LeaseToken], l.Status)
					}
				}
				for _, tok := range foreign {
					if _, ok := got[tok]; !ok {
						t.Fatalf("the other writer's %s was erased", tok)
					}
				}
				for tok, st := range lastForeign {
					if !changedByUs[tok] && got[tok] != st {
						t.Fatalf("the other writer's change of %s lost: %s, want %s", tok, got[tok], st)
					}
				}
				for _, l := range ours.Leases {
					written[l.LeaseToken] = l.Status
					// What the controller changed is its own again.
					if changedByUs[l.LeaseToken] {
						delete(lastForeign, l.LeaseToken)
					}
				}
			case 1: // the controller registers a lease
				ours.Leases = append(ours.Leases, daokitLease(fmt.Sprint("lease_d", n), LeaseActive))
			case 2: // the controller changes one of its leases
				if len(ours.Leases) > 0 {
					i := int(op/6) % len(ours.Leases)
					ours.Leases[i].Status = status(n)
				}
			case 3: // the other writer registers a lease
				tok := fmt.Sprint("lease_py", n)
				l := daokitLease(tok, LeaseActive)
				l.Lane, l.ThreadID = "default", "cli-1"
				pythonSaveLeases(t, root, func(r *Leases) { r.Leases = append(r.Leases, l) })
				foreign = append(foreign, tok)
				lastForeign[tok] = LeaseActive
			case 4, 5: // the other writer changes a record in the file
				pythonSaveLeases(t, root, func(r *Leases) {
					if len(r.Leases) == 0 {
						return
					}
					i := int(op/6) % len(r.Leases)
					r.Leases[i].Status = status(n + 1)
					lastForeign[r.Leases[i].LeaseToken] = r.Leases[i].Status
				})
			}
		}
	})
}
