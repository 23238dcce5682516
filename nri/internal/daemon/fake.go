package daemon

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Fake is a daemon in memory for tests: it keeps pins by path, refuses a
// second pin of one target (DuplicateTarget), an unknown profile
// (UnknownProfile) and an unknown path (NoSuchPin) as idlepolicyd does,
// and counts the calls.
type Fake struct {
	mu           sync.Mutex
	pins         map[string]Pin
	reports      map[string]string
	next         int
	ProfileNames []string
	Calls        map[string]int
	Fail         error // returned by every call while set
}

// NewFake returns a fake daemon with the built-in profiles.
func NewFake() *Fake {
	return &Fake{pins: map[string]Pin{}, reports: map[string]string{}, ProfileNames: []string{"balanced", "latency", "performance", "power-saver"},
		Calls: map[string]int{}}
}

func busError(name, format string, a ...any) error {
	return dbus.Error{Name: ErrorPrefix + name, Body: []any{fmt.Sprintf(format, a...)}}
}

// Pins returns the pins sorted by path.
func (f *Fake) Pins(ctx context.Context) ([]Pin, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Pins"]++
	if f.Fail != nil {
		return nil, f.Fail
	}
	pins := []Pin{}
	for _, p := range f.pins {
		pins = append(pins, p)
	}
	sort.Slice(pins, func(i, j int) bool { return pins[i].Path < pins[j].Path })
	return pins, nil
}

// Pin adds a pin.
func (f *Fake) Pin(ctx context.Context, target, cpus, profile, reason string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Pin"]++
	if f.Fail != nil {
		return "", f.Fail
	}
	if err := f.checkProfile(profile); err != nil {
		return "", err
	}
	for _, p := range f.pins {
		if p.Target == target {
			return "", busError("DuplicateTarget", "%s is pinned already", target)
		}
	}
	f.next++
	path := fmt.Sprintf("%s/pin/%d", RootPath, f.next)
	f.pins[path] = Pin{Path: path, Target: target, CPUs: cpus, Profile: profile, Reason: reason, State: "active"}
	return path, nil
}

// checkProfile refuses a profile as the daemon does: UnknownProfile for a
// name (or the BASE of BASE:latency_limit_us=N) not in ProfileNames or
// another parameter, InvalidLatency for an N that is not 0 to 10000000 in
// plain decimal.
func (f *Fake) checkProfile(profile string) error {
	base, param, derived := strings.Cut(profile, ":")
	known := false
	for _, n := range f.ProfileNames {
		known = known || n == base
	}
	if !known {
		return busError("UnknownProfile", "Unknown profile %q", base)
	}
	if !derived {
		return nil
	}
	key, value, _ := strings.Cut(param, "=")
	if key != "latency_limit_us" {
		return busError("UnknownProfile", "Unknown profile %q: after BASE: only latency_limit_us=N may follow", profile)
	}
	n, err := strconv.ParseUint(value, 10, 32)
	if err != nil || n > 10000000 || strconv.FormatUint(n, 10) != value {
		return busError("InvalidLatency", "Invalid latency limit in %q", profile)
	}
	return nil
}

// Unpin removes a pin.
func (f *Fake) Unpin(ctx context.Context, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Unpin"]++
	if f.Fail != nil {
		return f.Fail
	}
	if _, ok := f.pins[path]; !ok {
		return busError("NoSuchPin", "No pin %s", path)
	}
	delete(f.pins, path)
	return nil
}

// Profiles returns ProfileNames.
func (f *Fake) Profiles(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Profiles"]++
	if f.Fail != nil {
		return nil, f.Fail
	}
	return append([]string(nil), f.ProfileNames...), nil
}

// Report keeps or clears a report.
func (f *Fake) Report(ctx context.Context, source, message string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Report"]++
	if f.Fail != nil {
		return f.Fail
	}
	if message == "" {
		delete(f.reports, source)
	} else {
		f.reports[source] = message
	}
	return nil
}

// Reports returns the sources with a report, sorted.
func (f *Fake) Reports(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls["Reports"]++
	if f.Fail != nil {
		return nil, f.Fail
	}
	out := []string{}
	for s := range f.reports {
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// ReportOf returns the report of source ("" when none).
func (f *Fake) ReportOf(source string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reports[source]
}

// Reset forgets the call counts.
func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls = map[string]int{}
}
