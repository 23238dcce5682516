package plugin

import (
	"strings"

	"github.com/idlepolicy/idlepolicyd/nri/internal/annot"
	"github.com/idlepolicy/idlepolicyd/nri/internal/daemon"
)

// ReasonPrefix starts the reason of every pin the plugin makes: the pins
// Synchronize may end are these, never an administrator's.
const ReasonPrefix = "k8s "

// reasonMax is the daemon's limit on a reason (Pin.reason, 127 bytes).
const reasonMax = 127

// Reason is a container's pin reason, "k8s NAMESPACE/POD/CONTAINER", cut
// to the daemon's limit at a character boundary.
func Reason(namespace, pod, container string) string {
	r := ReasonPrefix + namespace + "/" + pod + "/" + container
	for len(r) > reasonMax {
		_, size := lastRune(r)
		r = r[:len(r)-size]
	}
	return r
}

func lastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xc0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, 1
}

// Desired is an annotated container that should be pinned.
type Desired struct {
	ID, Target, Reason string
	Want               annot.Want
}

// ActionKind says what to do with one pin.
type ActionKind int

const (
	// Adopt: the daemon's pin is what the container wants; remember it.
	Adopt ActionKind = iota
	// Unpin the daemon's pin (its container is gone or wants something else).
	Unpin
	// Pin the container.
	Pin
	// Conflict: a pin that is not the plugin's holds the container's target; left alone.
	Conflict
)

// Action is one step of a reconciliation.
type Action struct {
	Kind    ActionKind
	Current daemon.Pin // Adopt, Unpin, Conflict
	Desired Desired    // Adopt, Pin, Conflict
}

// matches reports whether pin p gives d what it wants.
func matches(p daemon.Pin, d Desired) bool {
	return p.Profile == d.Want.Profile && (d.Want.CPUs == "" || p.CPUs == d.Want.CPUs) && p.State != "ended"
}

// Plan compares the containers that should be pinned with the daemon's
// pins and returns the steps that make them agree: every Unpin first (it
// may free a target a Pin needs), then Pin, Adopt and Conflict in the
// order of desired.  Applying the plan and planning again gives only
// Adopt steps.
func Plan(desired []Desired, current []daemon.Pin) []Action {
	byTarget := map[string]daemon.Pin{}
	for _, p := range current {
		byTarget[p.Target] = p
	}
	wanted := map[string]bool{}
	var unpins, rest []Action
	for _, d := range desired {
		wanted[d.Target] = true
		p, ok := byTarget[d.Target]
		switch {
		case !ok:
			rest = append(rest, Action{Kind: Pin, Desired: d})
		case !strings.HasPrefix(p.Reason, ReasonPrefix):
			rest = append(rest, Action{Kind: Conflict, Current: p, Desired: d})
		case matches(p, d):
			rest = append(rest, Action{Kind: Adopt, Current: p, Desired: d})
		default:
			unpins = append(unpins, Action{Kind: Unpin, Current: p})
			rest = append(rest, Action{Kind: Pin, Desired: d})
		}
	}
	for _, p := range current {
		if strings.HasPrefix(p.Reason, ReasonPrefix) && !wanted[p.Target] {
			unpins = append(unpins, Action{Kind: Unpin, Current: p})
		}
	}
	return append(unpins, rest...)
}
