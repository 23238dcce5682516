package annot

import (
	"errors"
	"testing"
)

var profiles = map[string]bool{"balanced": true, "latency": true, "power-saver": true, "performance": true,
	"max-latency-20": true}

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
		{map[string]string{CRIOCStates: "max_latency:10"}, "app", Want{Profile: "latency", From: CRIOCStates}},
		{map[string]string{CRIOCStates: "max_latency:20"}, "app", Want{Profile: "max-latency-20", From: CRIOCStates}},
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
	}
	for _, c := range cases {
		got, err := Resolve(c.pod, "app", DefaultCRIO, loaded)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != c.key || got != (Want{}) {
			t.Errorf("Resolve(%v) = %+v, %v; want an error on %s", c.pod, got, err, c.key)
		}
	}
}

func TestResolveWithoutProfileList(t *testing.T) {
	got, err := Resolve(map[string]string{Profile: "custom"}, "app", DefaultCRIO, nil)
	if err != nil || got.Profile != "custom" {
		t.Errorf("got %+v, %v", got, err)
	}
}
