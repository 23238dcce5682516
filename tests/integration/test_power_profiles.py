#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""follow_power_profiles: the machine profile follows power-profiles-daemon
(python3-dbusmock's power_profiles_daemon template on the private system
bus, with the real daemon's hold behaviour added by ppd_template.py):

- each change of its ActiveProfile becomes the machine profile, holds
  taken through it included;
- `idlepolicyctl profile` overrides until it changes again, across a
  restart of idlepolicyd too;
- it leaving the bus leaves the profile; it appearing (again, or only
  after idlepolicyd started) is followed;
- org.freedesktop.UPower.PowerProfiles (0.20 and later) is preferred to
  the legacy net.hadess.PowerProfiles; a PropertiesChanged from anyone
  but the owner is ignored; a profile the daemon does not have is kept
  out; without the key, or after a reload turns it off, nothing follows."""

import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ppd_template.py')
VARIANTS = {
    'legacy': ('net.hadess.PowerProfiles', '/net/hadess/PowerProfiles'),
    'upower': ('org.freedesktop.UPower.PowerProfiles', '/org/freedesktop/UPower/PowerProfiles'),
}


class Ppd:
    """A power-profiles-daemon mock (variant: legacy or upower)."""

    def __init__(self, test, variant='legacy', profile='balanced'):
        self.test = test
        self.name, self.path = VARIANTS[variant]
        self.proc = T.Process([test.python, '-m', 'dbusmock', '--system', '-t', TEMPLATE,
                               '-p', json.dumps({'ActiveProfile': profile})],
                              os.path.join(test.tmp, f'ppd-{variant}.log'), test.env(PPD_MOCK_VARIANT=variant))
        test.addCleanup(self.stop)
        T.wait_for(lambda: test.bus.name_has_owner(self.name) or not self.proc.alive(), what=f'the {self.name} mock')
        test.assertTrue(self.proc.alive(), self.proc.output())

    def obj(self):
        return self.test.bus.get_object(self.name, self.path)

    def set(self, profile):
        """Sets ActiveProfile as powerprofilesctl set does (signalled)."""
        T.dbus.Interface(self.obj(), T.PROPS_IFACE).Set(self.name, 'ActiveProfile', T.dbus.String(profile))

    def get(self):
        return str(T.dbus.Interface(self.obj(), T.PROPS_IFACE).Get(self.name, 'ActiveProfile'))

    def hold(self, profile):
        """A hold through power-profiles-daemon, as powerprofilesctl launch takes it."""
        return T.dbus.Interface(self.obj(), self.name).HoldProfile(profile, 'test', 'org.example.Test')

    def release(self, cookie):
        T.dbus.Interface(self.obj(), self.name).ReleaseProfile(T.dbus.UInt32(cookie))

    def stop(self):
        if self.proc.alive():
            self.proc.stop()
            T.wait_for(lambda: not self.test.bus.name_has_owner(self.name), what=f'{self.name} to leave the bus')


class PpdCase(T.IdlePolicyTestCase):
    """The daemon started by the test with follow_power_profiles = FOLLOW."""
    START_DAEMON = False
    FOLLOW = True

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.tmp, 'idlepolicyd.conf')
        self.write_config(self.FOLLOW)

    def write_config(self, follow):
        with open(self.config, 'w', encoding='utf-8') as f:
            json.dump({'follow_power_profiles': follow}, f)

    def start(self):
        self.start_daemon(extra=['--config', self.config])

    def profile(self):
        return str(self.manager_prop('ActiveProfile'))

    def wait_profile(self, name):
        T.wait_for(lambda: self.profile() == name, what=f'ActiveProfile {name} (now {self.profile()})')

    def follow(self):
        follow, name, profile = self.manager_prop('FollowPowerProfiles')
        return bool(follow), str(name), str(profile)

    def wait_follow(self, expected):
        T.wait_for(lambda: self.follow() == expected, what=f'FollowPowerProfiles {expected} (now {self.follow()})')

    def ticks(self):
        text = str(self.call('Metrics'))
        return int(text.split('\nidlepolicy_tick_duration_seconds_count ', 1)[1].split('\n', 1)[0])

    def wait_ticks(self, n=3):
        start = self.ticks()
        T.wait_for(lambda: self.ticks() >= start + n, what=f'{n} ticks')


class PowerProfiles(PpdCase):

    def follows_changes_and_holds(self, variant):
        ppd = Ppd(self, variant, 'power-saver')
        self.start()
        self.wait_profile('power-saver')
        self.wait_follow((True, ppd.name, 'power-saver'))
        ppd.set('performance')
        self.wait_profile('performance')
        ppd.set('balanced')
        self.wait_profile('balanced')
        # a hold through power-profiles-daemon changes its ActiveProfile: followed
        cookie = ppd.hold('performance')
        self.assertEqual(ppd.get(), 'performance')
        self.wait_profile('performance')
        ppd.release(cookie)
        self.wait_profile('balanced')
        status = self.ctl('status').stdout
        self.assertIn(f'Follows:     power-profiles-daemon ({ppd.name}): balanced\n', status)
        got = json.loads(self.ctl('status', '--json').stdout)['power_profiles']
        self.assertEqual(got, {'follow': True, 'bus_name': ppd.name, 'profile': 'balanced'})
        self.assertIn('Following power-profiles-daemon: profile performance.', self.daemon.output())

    def test_follows_changes_and_holds_legacy_name(self):
        self.follows_changes_and_holds('legacy')

    def test_follows_changes_and_holds_current_name(self):
        self.follows_changes_and_holds('upower')

    def test_manual_profile_until_ppd_changes(self):
        ppd = Ppd(self)
        self.start()
        self.wait_profile('balanced')
        self.wait_follow((True, ppd.name, 'balanced'))
        self.ctl('profile', 'latency')
        self.wait_ticks()
        self.assertEqual(self.profile(), 'latency')
        self.assertIn(f'power-profiles-daemon ({ppd.name}): balanced; overridden by hand until it changes again',
                      self.ctl('status').stdout)
        # a restart of idlepolicyd keeps the override: power-profiles-daemon did not change
        self.stop_daemon()
        self.start()
        self.wait_follow((True, ppd.name, 'balanced'))
        self.wait_ticks()
        self.assertEqual(self.profile(), 'latency')
        ppd.set('power-saver')
        self.wait_profile('power-saver')

    def test_ppd_leaves_and_comes_back(self):
        ppd = Ppd(self, profile='performance')
        self.start()
        self.wait_profile('performance')
        ppd.stop()
        self.wait_follow((True, '', 'performance'))
        self.assertEqual(self.profile(), 'performance')
        self.assertIn('Follows:     power-profiles-daemon: not on the bus, the profile stays (last: performance)',
                      self.ctl('status').stdout)
        self.ctl('profile', 'balanced')
        ppd = Ppd(self, profile='power-saver')
        self.wait_profile('power-saver')
        self.wait_follow((True, ppd.name, 'power-saver'))

    def test_ppd_appears_later(self):
        self.start()
        self.wait_follow((True, '', ''))
        self.assertEqual(self.profile(), 'balanced')
        Ppd(self, 'upower', 'performance')
        self.wait_profile('performance')

    def test_current_name_preferred(self):
        """power-profiles-daemon 0.20 and later own both names: the current
        one is followed; the legacy one takes over when it is alone."""
        legacy = Ppd(self, 'legacy', 'power-saver')
        current = Ppd(self, 'upower', 'performance')
        self.start()
        self.wait_profile('performance')
        self.wait_follow((True, current.name, 'performance'))
        legacy.set('balanced')
        current.set('power-saver')
        self.wait_profile('power-saver')
        self.assertNotIn('Switching profile from performance to balanced', self.daemon.output())
        current.stop()
        self.wait_follow((True, legacy.name, 'balanced'))
        self.wait_profile('balanced')

    def test_spoofed_signal_ignored(self):
        """Anyone may emit PropertiesChanged on ppd's path: only its owner counts."""
        ppd = Ppd(self)
        self.start()
        self.wait_follow((True, ppd.name, 'balanced'))
        spoof = T.dbus.lowlevel.SignalMessage(ppd.path, T.PROPS_IFACE, 'PropertiesChanged')
        spoof.append(ppd.name, T.dbus.Dictionary({'ActiveProfile': T.dbus.String('performance')}, signature='sv'),
                     T.dbus.Array([], signature='s'), signature='sa{sv}as')
        self.bus.send_message(spoof)
        self.bus.flush()
        ppd.set('power-saver')                       # sent after the spoof: handled after it
        self.wait_profile('power-saver')
        self.assertNotIn('to performance', self.daemon.output())

    def test_unknown_profile_kept_out(self):
        ppd = Ppd(self)
        self.start()
        self.wait_follow((True, ppd.name, 'balanced'))
        ppd.set('quiet')
        self.wait_follow((True, ppd.name, 'quiet'))
        self.assertEqual(self.profile(), 'balanced')
        self.assertIn("power-profiles-daemon's profile \"quiet\" is not one of the daemon's profiles, keeping balanced.",
                      self.daemon.output())
        self.assertIn('quiet; not a profile here, balanced stays', self.ctl('status').stdout)

    def test_reload_turns_following_off_and_on(self):
        ppd = Ppd(self, profile='performance')
        self.start()
        self.wait_profile('performance')
        self.write_config(False)
        self.daemon.signal(signal.SIGHUP)
        self.wait_follow((False, '', ''))
        ppd.set('power-saver')
        self.wait_ticks()
        self.assertEqual(self.profile(), 'performance')
        self.assertNotIn('Follows:', self.ctl('status').stdout)
        self.write_config(True)
        self.daemon.signal(signal.SIGHUP)
        self.wait_profile('power-saver')


class NotFollowing(PpdCase):
    FOLLOW = False

    def test_not_following_by_default(self):
        ppd = Ppd(self, profile='performance')
        self.start()
        self.wait_follow((False, '', ''))
        ppd.set('power-saver')
        self.wait_ticks()
        self.assertEqual(self.profile(), 'balanced')
        self.assertNotIn('power-profiles-daemon', self.daemon.output())


if __name__ == '__main__':
    T.main()
