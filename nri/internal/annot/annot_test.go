package annot

import (
	"errors"
	"strings"
	"testing"
)

var profiles = map[string]bool{"balanced": true, "latency": true, "power-saver": true, "performance": true,
	"max-latency-20": true} // an administrator's profile named for 20: max_latency:20 is exact all the same

func loaded(name string) bool { return profiles[name] }

func TestResolve(t *testing.T) {
	cases := []struct {
		pod  map[string]string
		name string
		want Want
	}{
		{map[string]string{}, "app", Want{}},
		{map[string]string{"other": "x"}, "app", Want{}},
		{map[string]string{Profile: "latency"}, "app", Want{Profile: "latency", From: Profile}},
		{map[string]string{Profile: "latency", ProfileContainer + "app": "power-saver"}, "app",
			Want{Profile: "power-saver", From: ProfileContainer + "app"}},
		{map[string]string{Profile: "latency", ProfileContainer + "app": "power-saver"}, "side",
			Want{Profile: "latency", From: Profile}},
		{map[string]string{Profile: "latency", ProfileContainer + "side": None}, "side", Want{}},
		{map[string]string{Profile: "latency", CPUs: "1"}, "app", Want{Profile: "latency", CPUs: "1", From: Profile}},
		{map[string]string{Profile: "latency", CPUs: "1", CPUsContainer + "app": "0-1,3"}, "app",
			Want{Profile: "latency", CPUs: "0-1,3", From: Profile}},
		{map[string]string{CRIOCStates: "enable"}, "app", Want{Profile: "balanced", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "disable"}, "app", Want{Profile: "latency", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "max_latency:0"}, "app", Want{Profile: "balanced", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "max_latency:10"}, "app",
			Want{Profile: "balanced:latency_limit_us=10", From: CRIOCStates}},
		// exact, a profile named for N or not
		{map[string]string{CRIOCStates: "max_latency:20"}, "app",
			Want{Profile: "balanced:latency_limit_us=20", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "max_latency:020"}, "app",
			Want{Profile: "balanced:latency_limit_us=20", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "max_latency:10000000"}, "app",
			Want{Profile: "balanced:latency_limit_us=10000000", From: CRIOCStates}},
		{map[string]string{Profile: "latency:latency_limit_us=50"}, "app",
			Want{Profile: "latency:latency_limit_us=50", From: Profile}},
		{map[string]string{Profile: "power-saver:latency_limit_us=0", CPUs: "1"}, "app",
			Want{Profile: "power-saver:latency_limit_us=0", CPUs: "1", From: Profile}},
		{map[string]string{CRIOCStates: "disable", Profile: "power-saver"}, "app",
			Want{Profile: "power-saver", From: Profile}},
	}
	for _, c := range cases {
		got, err := Resolve(c.pod, c.name, DefaultCRIO, loaded)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%v, %q) = %+v, %v; want %+v", c.pod, c.name, got, err, c.want)
		}
	}
}

func TestResolveRejects(t *testing.T) {
	cases := []struct {
		pod map[string]string
		key string
	}{
		{map[string]string{Profile: "no-such"}, Profile},
		{map[string]string{Profile: ""}, Profile},
		{map[string]string{Profile: "lat ency"}, Profile},
		{map[string]string{Profile: ".hidden"}, Profile},
		{map[string]string{Profile: "a234567890123456789012345678901234567890123456789012345678901234"}, Profile},
		{map[string]string{ProfileContainer + "app": "x/y"}, ProfileContainer + "app"},
		{map[string]string{Profile: "latency", CPUs: "1-0"}, CPUs},
		{map[string]string{Profile: "latency", CPUs: "one"}, CPUs},
		{map[string]string{Profile: "latency", CPUs: ""}, CPUs},
		{map[string]string{Profile: "latency", CPUs: "01"}, CPUs},
		{map[string]string{Profile: "latency", CPUsContainer + "app": "0,,1"}, CPUsContainer + "app"},
		{map[string]string{CRIOCStates: "off"}, CRIOCStates},
		{map[string]string{CRIOCStates: "max_latency:"}, CRIOCStates},
		{map[string]string{CRIOCStates: "max_latency:-1"}, CRIOCStates},
		{map[string]string{CRIOCStates: "max_latency:10000001"}, CRIOCStates},
		{map[string]string{Profile: "nosuch:latency_limit_us=5"}, Profile},
		{map[string]string{Profile: "latency:latency_limit_us=05"}, Profile},
		{map[string]string{Profile: "latency:latency_limit_us=10000001"}, Profile},
		{map[string]string{Profile: "latency:latency_limit_us=-1"}, Profile},
		{map[string]string{Profile: "latency:latency_limit_us="}, Profile},
		{map[string]string{Profile: "latency:exit_latency=5"}, Profile},
		{map[string]string{Profile: "latency:"}, Profile},
		{map[string]string{Profile: ":latency_limit_us=5"}, Profile},
		{map[string]string{Profile: "latency:latency_limit_us=5:latency_limit_us=6"}, Profile},
	}
	for _, c := range cases {
		got, err := Resolve(c.pod, "app", DefaultCRIO, loaded)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != c.key || got != (Want{}) {
			t.Errorf("Resolve(%v) = %+v, %v; want an error on %s", c.pod, got, err, c.key)
		}
	}
}

// Another base for max_latency:N (-crio-max-latency-base).
func TestCRIOMaxLatencyBase(t *testing.T) {
	crio := DefaultCRIO
	crio.MaxLatencyBase = "power-saver"
	got, err := Resolve(map[string]string{CRIOCStates: "max_latency:30"}, "app", crio, loaded)
	if err != nil || got.Profile != "power-saver:latency_limit_us=30" {
		t.Errorf("got %+v, %v", got, err)
	}
	crio.MaxLatencyBase = "gone"
	if _, err := Resolve(map[string]string{CRIOCStates: "max_latency:30"}, "app", crio, loaded); err == nil ||
		!strings.Contains(err.Error(), `the daemon has no profile "gone"`) {
		t.Errorf("a base the daemon lacks: %v", err)
	}
}

func TestResolveWithoutProfileList(t *testing.T) {
	got, err := Resolve(map[string]string{Profile: "custom"}, "app", DefaultCRIO, nil)
	if err != nil || got.Profile != "custom" {
		t.Errorf("got %+v, %v", got, err)
	}
}
