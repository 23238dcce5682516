/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Pins and holds on the bus (DESIGN.md §5, pins.h):
 *
 *   on the Manager (a second vtable on /org/idlepolicy/IdlePolicy1,
 *   interface org.idlepolicy.IdlePolicy1.Manager):
 *     Pin(s target, s cpus, s profile) → o pin
 *     PinWithOptions(s target, s cpus, s profile, a{sv} options) → o pin
 *                                     options: "reason" (s)
 *     Unpin(o pin)
 *     Hold(s profile, s cpus, s reason, s app_id) → u cookie
 *     Release(u cookie)
 *     Pins ao, Holds a(usssss): cookie, profile, cpus ("" = all), reason,
 *                               app_id, owner (the holder's unique name)
 *     PinReleased(o pin, s why), HoldReleased(u cookie)
 *
 *   one object per pin, /org/idlepolicy/IdlePolicy1/pin/N, interface
 *   org.idlepolicy.IdlePolicy1.Pin: Target s, CPUs s, Profile s, State s
 *   (active, waiting, ended), PIDs au, Created t (realtime µs), Reason s,
 *   OwnerUID u; Release().  Pins come and go with InterfacesAdded and
 *   InterfacesRemoved on the root's ObjectManager.
 *
 * Authorisation (polkit.h; root always passes):
 *   org.idlepolicy.IdlePolicy1.pin               Pin of anything, Unpin of
 *                                                another user's pin, Release
 *                                                of another client's hold
 *   org.idlepolicy.IdlePolicy1.pin-own-process   Pin of pid:N when the
 *                                                caller owns N (process-owner.h),
 *                                                Unpin of the caller's own pin
 *   org.idlepolicy.IdlePolicy1.hold              Hold
 * A client releases its own holds without asking.  Each holder is watched
 * with an sd_bus_track: its holds go when it leaves the bus. */

#define BUS_PIN_INTERFACE "org.idlepolicy.IdlePolicy1.Pin"

typedef struct Manager Manager;

/* Adds the Manager's pin vtable, the pin objects and their enumerator to
 * m->bus (m->pins must exist) and registers the events they turn into
 * PropertiesChanged (Pins, Holds), PinReleased, InterfacesRemoved and
 * HoldReleased.  Returns 0 or a negative errno. */
int bus_pins_register(Manager *m);
