// Package annot turns a pod's and a container's annotations into what the
// container should get from idlepolicyd: a profile on its CPUs (and,
// optionally, the CPUs), or nothing.
//
//	idlepolicy.io/profile                  pod: every container's profile
//	idlepolicy.io/profile.container.NAME   pod: container NAME's profile ("none": no pin)
//	idlepolicy.io/cpus                     pod: the CPUs to pin to (default: the container's cpuset)
//	idlepolicy.io/cpus.container.NAME      pod: container NAME's CPUs
//	cpu-c-states.crio.io                   pod: CRI-O's form, "enable" | "disable" | "max_latency:N"
//
// The idlepolicy.io annotations win over CRI-O's where both are given.
package annot

import (
	"fmt"
	"strconv"
	"strings"
)

// The annotation keys.
const (
	Profile          = "idlepolicy.io/profile"
	ProfileContainer = "idlepolicy.io/profile.container."
	CPUs             = "idlepolicy.io/cpus"
	CPUsContainer    = "idlepolicy.io/cpus.container."
	CRIOCStates      = "cpu-c-states.crio.io"
)

// None opts a container out of its pod's profile.
const None = "none"

// CRIO says which idlepolicyd profile each of CRI-O's cpu-c-states forms
// maps to.  "max_latency:N" (N > 0) is MaxLatencyBase with exactly that
// limit: the daemon's derived profile MaxLatencyBase+":latency_limit_us=N".
type CRIO struct {
	Enable         string // "enable" and "max_latency:0": every state allowed
	Disable        string // "disable": CRI-O polls only
	MaxLatencyBase string // "max_latency:N": this profile with latency limit N
}

// DefaultCRIO is the mapping documented in nri/README.md.
var DefaultCRIO = CRIO{Enable: "balanced", Disable: "latency", MaxLatencyBase: "balanced"}

// The daemon's derived profiles: BASE + LimitParam + N is BASE with a
// latency limit of exactly N µs, 0 (none) to LimitMax (idlepolicyd(8),
// PROFILES).
const (
	LimitParam = ":latency_limit_us="
	LimitMax   = 10000000
)

// WithLimit returns the name of profile base with latency limit n µs.
func WithLimit(base string, n uint64) string {
	return base + LimitParam + strconv.FormatUint(n, 10)
}

// Base returns the loaded profile a profile name stands on: name itself,
// or BASE of a derived name.
func Base(name string) string {
	base, _, _ := strings.Cut(name, ":")
	return base
}

// Want is what one container should get.
type Want struct {
	Profile string // "" = no pin
	CPUs    string // "" = the container's own cpuset
	From    string // the annotation that chose the profile, for messages
}

// Error is a bad annotation: the container gets no pin and still starts.
type Error struct {
	Key, Value, Why string
}

func (e *Error) Error() string {
	return fmt.Sprintf("bad annotation %s=%q: %s", e.Key, e.Value, e.Why)
}

// Resolve returns what container name of a pod with annotations pod gets.
// loaded tells whether the daemon has a profile (nil: any name is taken).
func Resolve(pod map[string]string, name string, crio CRIO, loaded func(string) bool) (Want, error) {
	w := Want{}
	if v, ok := pod[ProfileContainer+name]; ok {
		w.Profile, w.From = v, ProfileContainer+name
	} else if v, ok := pod[Profile]; ok {
		w.Profile, w.From = v, Profile
	} else if v, ok := pod[CRIOCStates]; ok {
		p, err := crioProfile(v, crio)
		if err != nil {
			return Want{}, err
		}
		w.Profile, w.From = p, CRIOCStates
	}
	if w.Profile == None || w.Profile == "" {
		if w.Profile == "" && w.From != "" {
			return Want{}, &Error{w.From, "", "empty profile name (use \"none\" to opt a container out)"}
		}
		return Want{}, nil
	}
	if why := profileNameError(w.Profile); why != "" {
		return Want{}, &Error{w.From, w.Profile, why}
	}
	if loaded != nil && !loaded(Base(w.Profile)) {
		return Want{}, &Error{w.From, w.Profile, "the daemon has no profile " + strconv.Quote(Base(w.Profile)) +
			" (see idlepolicyctl profile)"}
	}
	key := CPUsContainer + name
	cpus, ok := pod[key]
	if !ok {
		key = CPUs
		cpus, ok = pod[key]
	}
	if ok {
		if err := checkCPUList(cpus); err != nil {
			return Want{}, &Error{key, cpus, err.Error()}
		}
		w.CPUs = cpus
	}
	return w, nil
}

// crioProfile maps CRI-O's cpu-c-states value.
func crioProfile(v string, crio CRIO) (string, error) {
	switch {
	case v == "enable":
		return crio.Enable, nil
	case v == "disable":
		return crio.Disable, nil
	case strings.HasPrefix(v, "max_latency:"):
		n, err := strconv.ParseUint(strings.TrimPrefix(v, "max_latency:"), 10, 32)
		if err != nil || n > LimitMax {
			return "", &Error{CRIOCStates, v, "max_latency takes microseconds, 0 to 10000000"}
		}
		if n == 0 { // CRI-O writes 0: no constraint
			return crio.Enable, nil
		}
		return WithLimit(crio.MaxLatencyBase, n), nil
	}
	return "", &Error{CRIOCStates, v, "expected enable, disable or max_latency:N"}
}

// profileNameError returns why name cannot be a profile's, or "": a
// loaded profile's name (the rule of idlepolicy-profile(5): 1-63 letters,
// digits, '.', '_', '-', not starting with '.'), or one with an exact
// latency limit, BASE:latency_limit_us=N (N in decimal without sign or
// leading zero, 0 to 10000000), as the daemon takes them.
func profileNameError(name string) string {
	base, limit, derived := strings.Cut(name, ":")
	if why := baseNameError(base); why != "" || !derived {
		return why
	}
	n, err := strconv.ParseUint(strings.TrimPrefix(limit, LimitParam[1:]), 10, 32)
	if !strings.HasPrefix(limit, LimitParam[1:]) || err != nil || n > LimitMax || WithLimit(base, n) != name {
		return "a profile with a latency limit is BASE:latency_limit_us=N, N 0 to 10000000 µs without leading zeros"
	}
	return ""
}

func baseNameError(name string) string {
	if name == "" {
		return "an empty profile name"
	}
	if len(name) > 63 {
		return "a profile name is at most 63 bytes"
	}
	if name[0] == '.' {
		return "a profile name does not start with '.'"
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "a profile name holds only letters, digits, '.', '_' and '-'"
		}
	}
	return ""
}

// checkCPUList checks the kernel's list syntax ("0-3,8,10-11"), as the
// daemon reads it.
func checkCPUList(s string) error {
	if s == "" {
		return fmt.Errorf("an empty CPU list")
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 16)
		if err != nil || lo != strconv.FormatUint(a, 10) {
			return fmt.Errorf("not a CPU list (expected e.g. 0-3,8)")
		}
		if isRange {
			b, err := strconv.ParseUint(hi, 10, 16)
			if err != nil || hi != strconv.FormatUint(b, 10) || b < a {
				return fmt.Errorf("not a CPU list (expected e.g. 0-3,8)")
			}
		}
	}
	return nil
}
