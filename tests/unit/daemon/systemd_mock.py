# SPDX-License-Identifier: LGPL-2.1-or-later
'''A python3-dbusmock template of org.freedesktop.systemd1 for the unit
pins (daemon/systemd-unit.c): what dbusmock's own "systemd" template lacks
(0.28: no AllowedCPUs, SetUnitProperties, Subscribe, NoSuchUnit, and other
object paths than systemd's).

Units live at systemd's object paths (sd_bus_path_encode under
/org/freedesktop/systemd1/unit) with org.freedesktop.systemd1.Unit (Id,
Names, LoadState, ActiveState) and, for the types with a cgroup, their
type's interface with AllowedCPUs (ay).  The Manager answers GetUnit
(org.freedesktop.systemd1.NoSuchUnit for a unit it does not have),
SetUnitProperties (AllowedCPUs only, applied to the property and
recorded; anything else PropertyReadOnly, as systemd says it), Subscribe
and Unsubscribe (counted).

Driven through org.freedesktop.DBus.Mock on the manager object:
  AddMockUnit(s name, s load_state, s active_state, ay allowed_cpus)
  SetMockUnitState(s name, s active_state)   PropertiesChanged, as systemd
  RemoveMockUnit(s name)                     the object goes, UnitRemoved
  GetSetUnitPropertiesCalls() -> a(say)      (unit, AllowedCPUs) each call
  GetSetUnitPropertiesRuntime() -> ab        the runtime flag of each call
  GetSubscribeCount() -> u
'''

import dbus

from dbusmock import MOCK_IFACE, mockobject

BUS_NAME = 'org.freedesktop.systemd1'
MAIN_OBJ = '/org/freedesktop/systemd1'
MAIN_IFACE = BUS_NAME + '.Manager'
SYSTEM_BUS = True

UNIT_IFACE = BUS_NAME + '.Unit'
UNIT_PREFIX = MAIN_OBJ + '/unit'
TYPE_IFACES = {
    'service': 'Service', 'scope': 'Scope', 'slice': 'Slice',
    'socket': 'Socket', 'mount': 'Mount', 'swap': 'Swap',
}


def unit_path(name):
    '''sd_bus_path_encode(UNIT_PREFIX, name): every byte but an ASCII
    letter, or a digit after the first byte, as _xx.'''
    out = []
    for i, c in enumerate(name.encode('utf-8')):
        ch = chr(c)
        if ('a' <= ch <= 'z') or ('A' <= ch <= 'Z') or (i > 0 and '0' <= ch <= '9'):
            out.append(ch)
        else:
            out.append(f'_{c:02x}')
    return UNIT_PREFIX + '/' + (''.join(out) or '_')


def type_iface(name):
    '''The interface carrying AllowedCPUs for name's type, or None.'''
    t = TYPE_IFACES.get(name.rsplit('.', 1)[-1])
    return BUS_NAME + '.' + t if t else None


def mask(value):
    return dbus.Array([dbus.Byte(int(b)) for b in value], signature='y')


def no_such_unit(name):
    return dbus.exceptions.DBusException(f'Unit {name} not loaded.', name=BUS_NAME + '.NoSuchUnit')


def load(mock, _parameters):
    mock.units = {}
    mock.set_calls = []
    mock.set_runtime = []
    mock.subscribed = 0
    mock.AddProperties(MAIN_IFACE, {'Version': 'v252'})


def unit_object(mock, name):
    if str(name) not in mock.units:
        raise no_such_unit(name)
    return mockobject.objects[mock.units[str(name)]]


@dbus.service.method(MAIN_IFACE, in_signature='s', out_signature='o')
def GetUnit(self, name):
    return dbus.ObjectPath(unit_object(self, name).path)


@dbus.service.method(MAIN_IFACE, in_signature='sba(sv)', out_signature='')
def SetUnitProperties(self, name, runtime, properties):
    unit = unit_object(self, name)
    if unit.props[UNIT_IFACE]['LoadState'] != 'loaded':
        raise no_such_unit(name)
    iface = type_iface(str(name))
    for prop, value in properties:
        if prop != 'AllowedCPUs' or iface is None:
            raise dbus.exceptions.DBusException(f'Cannot set property {prop}, or unknown property.',
                                                name='org.freedesktop.DBus.Error.PropertyReadOnly')
        unit.props[iface]['AllowedCPUs'] = mask(value)
        self.set_calls.append((str(name), [int(b) for b in value]))
        self.set_runtime.append(bool(runtime))


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='')
def Subscribe(self):
    self.subscribed += 1


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='')
def Unsubscribe(self):
    self.subscribed -= 1


@dbus.service.method(MOCK_IFACE, in_signature='sssay', out_signature='')
def AddMockUnit(self, name, load_state, active_state, allowed_cpus):
    path = unit_path(str(name))
    self.AddObject(path, UNIT_IFACE, {
        'Id': dbus.String(name),
        'Names': dbus.Array([name], signature='s'),
        'LoadState': dbus.String(load_state),
        'ActiveState': dbus.String(active_state),
    }, [])
    iface = type_iface(str(name))
    if iface:
        mockobject.objects[path].AddProperties(iface, {'AllowedCPUs': mask(allowed_cpus)})
    self.units[str(name)] = path


@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def SetMockUnitState(self, name, active_state):
    unit_object(self, name).UpdateProperties(UNIT_IFACE, {'ActiveState': dbus.String(active_state)})


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='')
def RemoveMockUnit(self, name):
    path = self.units.pop(str(name))
    self.RemoveObject(path)
    self.EmitSignal(MAIN_IFACE, 'UnitRemoved', 'so', [name, dbus.ObjectPath(path)])


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='a(say)')
def GetSetUnitPropertiesCalls(self):
    return dbus.Array([dbus.Struct((n, mask(v)), signature='say') for n, v in self.set_calls], signature='(say)')


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='ab')
def GetSetUnitPropertiesRuntime(self):
    return dbus.Array([dbus.Boolean(r) for r in self.set_runtime], signature='b')


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='u')
def GetSubscribeCount(self):
    return dbus.UInt32(self.subscribed)
