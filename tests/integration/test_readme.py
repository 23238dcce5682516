#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What README.md says about the D-Bus interface, against the real daemon:
every member of its tables (properties, methods, signals) of the Manager,
CPU and Pin interfaces against the daemon's introspection, both ways; its
error names against the daemon's (daemon/bus/bus-error.h); its polkit actions
against units/org.idlepolicy.IdlePolicy1.policy.  A member added to the
daemon and not to the README (or the other way round) fails here."""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idlepolicytest as T  # noqa: E402

SOURCE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
README = os.path.join(SOURCE_ROOT, 'README.md')
BUS_ERRORS = os.path.join(SOURCE_ROOT, 'daemon', 'bus', 'bus-error.h')
POLKIT_POLICY = os.path.join(SOURCE_ROOT, 'units', 'org.idlepolicy.IdlePolicy1.policy')
ERROR_NAME = T.ERROR_PREFIX.rstrip('.')
ACTION_PREFIX = 'org.idlepolicy.IdlePolicy1.'


def dbus_section():
    """README.md's "## D-Bus interface" section."""
    with open(README, encoding='utf-8') as f:
        text = f.read()
    return re.search(r'^## D-Bus interface\n(.*?)(?=^## |\Z)', text, re.M | re.S).group(1)


def subsections(text):
    """{heading: body} of the ### subsections of text."""
    parts = re.split(r'^### (.*)\n', text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def table_members(body):
    """The names in the first cells of body's tables: `Name`, `Name(...)`,
    `Cap`, `Floor`; signal rows too.  Header rows name nothing in backquotes."""
    names = set()
    for line in body.splitlines():
        if not line.startswith('|') or line.startswith('|---'):
            continue
        first = line.split('|')[1]
        names |= {m.split('(')[0] for m in re.findall(r'`([A-Z][A-Za-z0-9]*(?:\([^`]*)?)`', first)}
    return names


def readme_interfaces():
    """{interface: members} of the README's interface subsections."""
    out = {}
    for heading, body in subsections(dbus_section()).items():
        m = re.search(r'`(org\.idlepolicy\.IdlePolicy1\.\w+)`', heading)
        if m:
            out[m.group(1)] = table_members(body)
    return out


def introspected(xml_text, interface):
    """The members (methods, properties, signals) of interface in xml_text."""
    root = ET.fromstring(xml_text)
    for node in root.findall('interface'):
        if node.get('name') == interface:
            return {child.get('name') for child in node if child.tag in ('method', 'property', 'signal')}
    return set()


class Readme(T.IdlePolicyTestCase):
    TREE_ARGS = ['--cpus', '2', '--driver', 'haltpoll', '--governor', 'haltpoll']
    START_POLKIT = False

    def introspect(self, path):
        return str(self.obj(path).Introspect(dbus_interface='org.freedesktop.DBus.Introspectable'))

    def test_dbus_members_are_the_daemons(self):
        child = subprocess.Popen(['sleep', '600'], preexec_fn=T._die_with_parent)  # noqa: PLW1509
        self.addCleanup(child.wait)
        self.addCleanup(child.kill)
        pin = str(self.call('Pin', f'pid:{child.pid}', '', 'latency'))
        paths = {T.MANAGER_IFACE: T.ROOT_PATH, T.CPU_IFACE: self.cpu_path(0), T.BUS_NAME + '.Pin': pin}
        documented = readme_interfaces()
        self.assertEqual(set(documented), set(paths), 'the README documents these interfaces')
        for interface, path in paths.items():
            with self.subTest(interface=interface):
                daemon = introspected(self.introspect(path), interface)
                self.assertTrue(daemon, f'{interface} on {path}')
                self.assertEqual(sorted(daemon - documented[interface]), [],
                                 f'{interface}: members missing from README.md')
                self.assertEqual(sorted(documented[interface] - daemon), [],
                                 f'{interface}: README.md documents members the daemon lacks')

    def test_error_names_are_the_daemons(self):
        body = subsections(dbus_section())['Errors']
        readme = {m.rsplit('.', 1)[1] for m in re.findall(r'`((?:' + re.escape(ERROR_NAME) + r')?\.[A-Z]\w+)`', body)}
        with open(BUS_ERRORS, encoding='utf-8') as f:
            daemon = set(re.findall(r'^#define BUS_ERROR_\w+\s+BUS_ERROR_PREFIX "(\w+)"', f.read(), re.M))
        self.assertTrue(daemon)
        self.assertEqual(sorted(readme), sorted(daemon))

    def test_polkit_actions_are_the_policys(self):
        body = subsections(dbus_section())['Authorisation']
        readme = {m.rsplit('.', 1)[1] for m in re.findall(r'`((?:' + re.escape(ACTION_PREFIX[:-1]) + r')?\.[a-z][a-z-]*)`',
                                                           body)}
        with open(POLKIT_POLICY, encoding='utf-8') as f:
            policy = {a[len(ACTION_PREFIX):] for a in re.findall(r'<action id="([^"]+)"', f.read())}
        self.assertTrue(policy)
        self.assertEqual(sorted(readme), sorted(policy))


if __name__ == '__main__':
    T.main()
