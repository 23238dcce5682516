// Package daemon is idlepolicyd as the plugin sees it: its pins, Pin and
// Unpin, over D-Bus (the system bus, or the address a DaemonSet shares
// between the two containers), with a fake for tests.
package daemon

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/godbus/dbus/v5"
)

// The daemon's names (idlepolicyd(8), D-BUS INTERFACE).
const (
	BusName      = "org.idlepolicy.IdlePolicy1"
	RootPath     = "/org/idlepolicy/IdlePolicy1"
	ManagerIface = BusName + ".Manager"
	PinIface     = BusName + ".Pin"
	ErrorPrefix  = BusName + ".Error."
)

// Pin is one of the daemon's pins, as its object's properties say.
type Pin struct {
	Path, Target, CPUs, Profile, Reason, State string
}

// Client is what the plugin asks of the daemon.
type Client interface {
	// Pins returns every pin the daemon has.
	Pins(ctx context.Context) ([]Pin, error)
	// Pin pins target and returns the pin's object path.
	Pin(ctx context.Context, target, cpus, profile, reason string) (string, error)
	// Unpin ends the pin at path.
	Unpin(ctx context.Context, path string) error
	// Profiles returns the names of the loaded profiles.
	Profiles(ctx context.Context) ([]string, error)
	// Report shows message in the daemon's status under source ("" clears it).
	Report(ctx context.Context, source, message string) error
	// Reports returns the sources that have a report.
	Reports(ctx context.Context) ([]string, error)
}

// IsError reports whether err is the daemon's named error (the last part
// of its D-Bus name: "NoSuchPin", "DuplicateTarget", ...).
func IsError(err error, name string) bool {
	var de dbus.Error
	if errors.As(err, &de) {
		return de.Name == ErrorPrefix+name
	}
	var dp *dbus.Error
	return errors.As(err, &dp) && dp.Name == ErrorPrefix+name
}

// Bus is the daemon on a D-Bus connection.
type Bus struct {
	conn *dbus.Conn
}

// Connect connects to address ("" or "system": the system bus, which
// honours DBUS_SYSTEM_BUS_ADDRESS).
func Connect(address string) (*Bus, error) {
	var conn *dbus.Conn
	var err error
	if address == "" || address == "system" {
		conn, err = dbus.ConnectSystemBus()
	} else {
		conn, err = dbus.Connect(address)
	}
	if err != nil {
		return nil, err
	}
	return &Bus{conn: conn}, nil
}

// Close closes the connection.
func (b *Bus) Close() error { return b.conn.Close() }

func (b *Bus) root() dbus.BusObject { return b.conn.Object(BusName, RootPath) }

// Pins reads every pin in one call: the root's ObjectManager.
func (b *Bus) Pins(ctx context.Context) ([]Pin, error) {
	var objects map[dbus.ObjectPath]map[string]map[string]dbus.Variant
	err := b.root().CallWithContext(ctx, "org.freedesktop.DBus.ObjectManager.GetManagedObjects", 0).Store(&objects)
	if err != nil {
		return nil, err
	}
	pins := []Pin{}
	for path, ifaces := range objects {
		props, ok := ifaces[PinIface]
		if !ok {
			continue
		}
		str := func(name string) string {
			s, _ := props[name].Value().(string)
			return s
		}
		pins = append(pins, Pin{Path: string(path), Target: str("Target"), CPUs: str("CPUs"),
			Profile: str("Profile"), Reason: str("Reason"), State: str("State")})
	}
	sort.Slice(pins, func(i, j int) bool { return pins[i].Path < pins[j].Path })
	return pins, nil
}

// Pin calls PinWithOptions with the reason.
func (b *Bus) Pin(ctx context.Context, target, cpus, profile, reason string) (string, error) {
	var path dbus.ObjectPath
	opts := map[string]dbus.Variant{"reason": dbus.MakeVariant(reason)}
	err := b.root().CallWithContext(ctx, ManagerIface+".PinWithOptions", 0, target, cpus, profile, opts).Store(&path)
	return string(path), err
}

// Unpin calls Unpin.
func (b *Bus) Unpin(ctx context.Context, path string) error {
	return b.root().CallWithContext(ctx, ManagerIface+".Unpin", 0, dbus.ObjectPath(path)).Err
}

// Profiles reads the Profiles property.
func (b *Bus) Profiles(ctx context.Context) ([]string, error) {
	var v dbus.Variant
	err := b.root().CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, ManagerIface, "Profiles").Store(&v)
	if err != nil {
		return nil, err
	}
	names, ok := v.Value().([]string)
	if !ok {
		return nil, errors.New("the Profiles property is not a list of strings")
	}
	return names, nil
}

// Report calls Report.
func (b *Bus) Report(ctx context.Context, source, message string) error {
	return b.root().CallWithContext(ctx, ManagerIface+".Report", 0, source, message).Err
}

// Reports reads the Reports property's sources.
func (b *Bus) Reports(ctx context.Context) ([]string, error) {
	var v dbus.Variant
	err := b.root().CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, ManagerIface, "Reports").Store(&v)
	if err != nil {
		return nil, err
	}
	var reports []struct {
		Usec            uint64
		Source, Message string
	}
	if err := dbus.Store([]any{v.Value()}, &reports); err != nil {
		return nil, err
	}
	sources := []string{}
	for _, r := range reports {
		sources = append(sources, r.Source)
	}
	return sources, nil
}

// NormalTarget is the daemon's normal form of "cgroup:"+path (pin-target.h:
// no leading '/', no empty component), so that the plugin's targets
// compare equal to the daemon's Target property.
func NormalTarget(cgroupsPath string) string {
	parts := []string{}
	for _, p := range strings.Split(cgroupsPath, "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return "cgroup:" + strings.Join(parts, "/")
}
