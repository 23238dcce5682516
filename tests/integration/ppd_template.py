# SPDX-License-Identifier: LGPL-2.1-or-later
"""power-profiles-daemon on the test's private system bus, for
test_power_profiles.py: python3-dbusmock's template, plus what the real
daemon does with a hold (which dbusmock's template does not): while holds
are taken ActiveProfile is the held profile (power-saver wins over
performance, as in power-profiles-daemon's hold handling), and it returns
to the profile chosen before once the last hold is released.

PPD_MOCK_VARIANT (environment) picks the name:
  legacy  net.hadess.PowerProfiles on /net/hadess/PowerProfiles: dbusmock's
          power_profiles_daemon template (power-profiles-daemon < 0.20)
  upower  org.freedesktop.UPower.PowerProfiles on
          /org/freedesktop/UPower/PowerProfiles (0.20 and later): dbusmock's
          upower_power_profiles_daemon template where installed (0.31 and
          later), else the legacy template's properties and methods under
          the new name, path and interface (Debian 12 has dbusmock 0.28)."""

import importlib
import os

import dbus

from dbusmock.templates import power_profiles_daemon as legacy

VARIANT = os.environ.get('PPD_MOCK_VARIANT', 'legacy')
UPOWER_NAME = 'org.freedesktop.UPower.PowerProfiles'
UPOWER_PATH = '/org/freedesktop/UPower/PowerProfiles'

try:
    upstream = importlib.import_module('dbusmock.templates.upower_power_profiles_daemon')
except ImportError:
    upstream = None

if VARIANT == 'upower':
    BUS_NAME, MAIN_OBJ, MAIN_IFACE = UPOWER_NAME, UPOWER_PATH, UPOWER_NAME
else:
    BUS_NAME, MAIN_OBJ, MAIN_IFACE = legacy.BUS_NAME, legacy.MAIN_OBJ, legacy.MAIN_IFACE
SYSTEM_BUS = True


def held_profile(mock):
    """The profile the holds ask for, or None."""
    profiles = {str(h['Profile']) for h in mock.holds.values()}
    for profile in ('power-saver', 'performance'):
        if profile in profiles:
            return profile
    return None


def apply_holds(mock):
    """ActiveProfile as power-profiles-daemon sets it, signalled."""
    want = held_profile(mock) or mock.chosen
    if str(mock.props[MAIN_IFACE]['ActiveProfile']) != want:
        mock.UpdateProperties(MAIN_IFACE, {'ActiveProfile': dbus.String(want)})


def hold(mock, profile, reason, app_id):
    if not mock.holds:
        mock.chosen = str(mock.props[MAIN_IFACE]['ActiveProfile'])
    mock.cookie += 1
    mock.holds[mock.cookie] = {'Profile': profile, 'Reason': reason, 'ApplicationId': app_id}
    apply_holds(mock)
    return mock.cookie


def release(mock, cookie):
    mock.holds.pop(cookie)
    apply_holds(mock)


def load_renamed(mock, parameters):
    """The legacy template's properties and methods under MAIN_IFACE."""
    props = {
        'ActiveProfile': parameters.get('ActiveProfile', 'balanced'),
        'PerformanceDegraded': parameters.get('PerformanceDegraded', ''),
        'Profiles': [dbus.Dictionary({'Profile': p, 'Driver': 'dbusmock'}, signature='sv')
                     for p in ('power-saver', 'balanced', 'performance')],
        'Actions': dbus.Array([], signature='s'),
        'ActiveProfileHolds': dbus.Array([], signature='(aa{sv})'),
    }
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary(props, signature='sv'))


def load(mock, parameters):
    if VARIANT == 'upower' and upstream:
        upstream.load(mock, parameters)
    elif VARIANT == 'upower':
        load_renamed(mock, parameters)
    else:
        legacy.load(mock, parameters)
    mock.cookie = 0
    mock.holds = {}
    mock.chosen = str(mock.props[MAIN_IFACE]['ActiveProfile'])
    mock.ppd_hold = hold
    mock.ppd_release = release
    mock.AddMethods(MAIN_IFACE, [
        ('HoldProfile', 'sss', 'u', 'ret = self.ppd_hold(self, args[0], args[1], args[2])'),
        ('ReleaseProfile', 'u', '', 'self.ppd_release(self, args[0])'),
    ])
