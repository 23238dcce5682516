# SPDX-License-Identifier: LGPL-2.1-or-later
"""A real containerd for the k8s suite and the benchmarks: built by
setup-containerd (go install, pinned versions, cached), run with its root,
state and sockets under a temp dir, NRI enabled, Debian's runc, the CRI
restricted to what root may do here (restrict_oom_score_adj,
disable_apparmor), pods on the host network (no CNI), images built here as
OCI tarballs (busybox-static, a static pause) and imported with ctr.
Cgroups are the machine's real ones (cgroupfs driver): every pod's
cgroup_parent lies below one top-level cgroup of the run
(/ipk8s-PID), removed from every hierarchy at the end whatever happened.

Whoever uses it holds /run/idlepolicy-knobs.lock (knobs_lock()) while
containerd runs or real cgroups are touched.  skip() exits 77 with the
reason when containerd cannot be built or run."""

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get('IDLEPOLICY_K8S_CACHE', '/var/cache/idlepolicy-k8s')
CGROUP_ROOT = '/sys/fs/cgroup'
BUSYBOX = 'localhost/idlepolicy-busybox:test'
PAUSE = 'localhost/idlepolicy-pause:test'
NAMESPACE = 'k8s.io'


def skip(why):
    sys.stderr.write(f'SKIP: {why}\n')
    sys.exit(77)


def knobs_lock(wait_s=600):
    """Takes the machine's lock (tests/live/knobslock.py: waits up to
    wait_s, then skips), or finds it held for us by an ancestor
    (scripts/under-load).  Returns what keeps it (the open file, or True)."""
    sys.path.insert(0, os.path.join(HERE, '..', 'live'))
    import knobslock  # noqa: E402  tests/live/knobslock.py
    lock = knobslock.take(wait_s)
    if lock is None:
        skip(knobslock.HELD_ELSEWHERE)
    return lock


def binaries():
    """The bin directory with containerd, its shim, ctr and crictl (built if
    needed: minutes the first time); skips when they cannot be built."""
    r = subprocess.run([os.path.join(HERE, 'setup-containerd')], capture_output=True, text=True, check=False)
    if r.returncode == 77:
        skip(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'setup-containerd skipped')
    if r.returncode != 0:
        raise RuntimeError(f'setup-containerd failed: {r.stderr}')
    return r.stdout.strip()


def _sha(data):
    return 'sha256:' + hashlib.sha256(data).hexdigest()


def _tar(entries):
    """A tar (bytes) of entries: (name, mode, bytes) files, (name, None, target) symlinks."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as t:
        for name, mode, data in entries:
            info = tarfile.TarInfo(name)
            info.mtime = 0
            if mode is None:
                info.type, info.linkname = tarfile.SYMTYPE, data
                t.addfile(info)
            elif data is None:
                info.type, info.mode = tarfile.DIRTYPE, mode
                t.addfile(info)
            else:
                info.mode, info.size = mode, len(data)
                t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def oci_archive(path, name, entries, cmd):
    """Writes an OCI image layout tarball of one layer (entries) named name
    (io.containerd.image.name) to path."""
    layer = _tar(entries)
    config = json.dumps({'architecture': 'amd64', 'os': 'linux',
                         'config': {'Cmd': cmd, 'Env': ['PATH=/bin']},
                         'rootfs': {'type': 'layers', 'diff_ids': [_sha(layer)]}}).encode()
    manifest = json.dumps({'schemaVersion': 2, 'mediaType': 'application/vnd.oci.image.manifest.v1+json',
                           'config': {'mediaType': 'application/vnd.oci.image.config.v1+json',
                                      'digest': _sha(config), 'size': len(config)},
                           'layers': [{'mediaType': 'application/vnd.oci.image.layer.v1.tar',
                                       'digest': _sha(layer), 'size': len(layer)}]}).encode()
    index = json.dumps({'schemaVersion': 2, 'manifests': [{
        'mediaType': 'application/vnd.oci.image.manifest.v1+json', 'digest': _sha(manifest), 'size': len(manifest),
        'platform': {'architecture': 'amd64', 'os': 'linux'},
        'annotations': {'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': name.rsplit(':', 1)[1]}}]}).encode()
    blobs = [('blobs/sha256/' + _sha(b)[7:], 0o644, b) for b in (layer, config, manifest)]
    with open(path, 'wb') as f:
        f.write(_tar([('oci-layout', 0o644, b'{"imageLayoutVersion": "1.0.0"}'), ('index.json', 0o644, index),
                      ('blobs', 0o755, None), ('blobs/sha256', 0o755, None)] + blobs))


BUSYBOX_APPLETS = ['sh', 'sleep', 'cat', 'true', 'echo', 'grep']


def build_images(dest):
    """Builds the busybox and pause archives into dest (cached by content).
    Returns their paths; skips without busybox-static or a static libc."""
    if not os.path.exists('/bin/busybox'):
        skip('no /bin/busybox (Debian package busybox-static)')
    os.makedirs(dest, exist_ok=True)
    with open('/bin/busybox', 'rb') as f:
        busybox = f.read()
    pause_bin = os.path.join(dest, 'pause')
    r = subprocess.run(['cc', '-static', '-Os', '-s', '-o', pause_bin, os.path.join(HERE, 'pause.c')],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        skip(f'cannot build a static pause: {r.stderr.strip()}')
    with open(pause_bin, 'rb') as f:
        pause = f.read()
    bb = os.path.join(dest, 'busybox.tar')
    oci_archive(bb, BUSYBOX, [('bin', 0o755, None), ('bin/busybox', 0o755, busybox)] +
                [(f'bin/{a}', None, 'busybox') for a in BUSYBOX_APPLETS], ['sh'])
    pa = os.path.join(dest, 'pause.tar')
    oci_archive(pa, PAUSE, [('pause', 0o755, pause)], ['/pause'])
    return bb, pa


CONFIG = """version = 3
root = "{dir}/root"
state = "{dir}/state"
temp = "{dir}/tmp"

[grpc]
  address = "{dir}/containerd.sock"

[ttrpc]
  address = "{dir}/containerd.sock.ttrpc"

[debug]
  level = "warn"

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "{dir}/opt"

[plugins."io.containerd.nri.v1.nri"]
  disable = false
  socket_path = "{dir}/nri.sock"
  plugin_path = "{dir}/nri-plugins"
  plugin_config_path = "{dir}/nri-conf"
  plugin_registration_timeout = "5s"
  plugin_request_timeout = "2s"
  disable_connections = false

[plugins."io.containerd.grpc.v1.cri"]
  disable_tcp_service = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"

[plugins."io.containerd.cri.v1.images".pinned_images]
  sandbox = "{pause}"

[plugins."io.containerd.cri.v1.runtime"]
  enable_selinux = false
  disable_apparmor = true
  restrict_oom_score_adj = true

[plugins."io.containerd.cri.v1.runtime".cni]
  bin_dirs = ["{dir}/cni-bin"]
  conf_dir = "{dir}/cni-conf"

[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
  BinaryName = "{runc}"
  SystemdCgroup = false
"""


def _mounts_below(path):
    with open('/proc/self/mountinfo', encoding='utf-8') as f:
        points = [line.split()[4].replace('\\040', ' ') for line in f]
    return [p for p in points if p == path or p.startswith(path + '/')]


def remove_cgroups(top):
    """Removes the cgroup top (a name below the mount) from every hierarchy
    under /sys/fs/cgroup, deepest first, killing what is left in it.
    Returns the directories it could not remove."""
    left = []
    for h in sorted(os.listdir(CGROUP_ROOT)):
        base = os.path.join(CGROUP_ROOT, h, top)
        if not os.path.isdir(base):
            continue
        dirs = [d for d, _, _ in os.walk(base)]
        for d in sorted(dirs, key=len, reverse=True):
            for _ in range(100):
                try:
                    with open(os.path.join(d, 'cgroup.procs'), encoding='ascii') as f:
                        for pid in f.read().split():
                            try:
                                os.kill(int(pid), signal.SIGKILL)
                            except ProcessLookupError:
                                pass
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)
            else:
                left.append(d)
    return left


class Containerd:
    """containerd under its own temp dir; stop() takes everything down."""

    def __init__(self, bindir, images):
        self.bindir = bindir
        self.runc = shutil.which('runc')
        if not self.runc:
            skip('no runc (Debian package runc)')
        self.dir = tempfile.mkdtemp(prefix='idlepolicy-k8s-', dir='/var/tmp')
        self.cgroup_top = f'ipk8s-{os.getpid()}'
        self.sock = os.path.join(self.dir, 'containerd.sock')
        self.nri_socket = os.path.join(self.dir, 'nri.sock')
        for d in ('nri-plugins', 'nri-conf', 'cni-bin', 'cni-conf', 'logs'):
            os.makedirs(os.path.join(self.dir, d))
        self.config = os.path.join(self.dir, 'config.toml')
        with open(self.config, 'w', encoding='utf-8') as f:
            f.write(CONFIG.format(dir=self.dir, pause=PAUSE, runc=self.runc))
        self.log = open(os.path.join(self.dir, 'containerd.log'), 'w+', encoding='utf-8')  # noqa: SIM115
        env = dict(os.environ, PATH=f'{bindir}:{os.environ.get("PATH", "/usr/bin:/bin")}')
        self.proc = subprocess.Popen([os.path.join(bindir, 'containerd'), '--config', self.config],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.sock) or self.ctr('version', check=False).returncode != 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                out = self.output()
                self.stop()
                skip(f'containerd did not start: {out[-2000:]}')
            time.sleep(0.1)
        for image in images:
            self.ctr('images', 'import', '--platform', 'linux/amd64', image)

    def output(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name, encoding='utf-8', errors='replace') as f:
            return f.read()

    def ctr(self, *args, check=True):
        r = subprocess.run([os.path.join(self.bindir, 'ctr'), '--address', self.sock, '--namespace', NAMESPACE] +
                           list(args), capture_output=True, text=True, check=False, timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError(f'ctr {args} failed: {r.stderr}')
        return r

    def crictl_argv(self, *args):
        ep = f'unix://{self.sock}'
        return [os.path.join(self.bindir, 'crictl'), '--runtime-endpoint', ep, '--image-endpoint', ep,
                '--timeout', '30s'] + list(args)

    def crictl(self, *args, check=True, timeout=60):
        r = subprocess.run(self.crictl_argv(*args), capture_output=True, text=True, check=False, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f'crictl {args} failed: {r.stderr}\n{self.output()[-3000:]}')
        return r.stdout.strip()

    def pod_config(self, name, annotations=None, namespace='default'):
        uid = str(uuid.uuid4())
        return {'metadata': {'name': name, 'namespace': namespace, 'uid': uid, 'attempt': 0},
                'log_directory': os.path.join(self.dir, 'logs', uid),
                'annotations': annotations or {},
                'linux': {'cgroup_parent': f'/{self.cgroup_top}/pod{uid}',
                          'security_context': {'namespace_options': {'network': 2, 'pid': 1, 'ipc': 0}}}}

    def write_json(self, doc):
        fd, path = tempfile.mkstemp(suffix='.json', dir=self.dir)
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            json.dump(doc, f)
        return path

    def run_pod(self, name, annotations=None, containers=(('app', '1'),), command=('sleep', '3600'),
                namespace='default', mounts=(), envs=None):
        """Runs a pod of busybox containers (name, cpuset or None), each
        running command.  Returns (pod id, {name: container id}, pod config)."""
        pod = self.pod_config(name, annotations, namespace)
        pod_json = self.write_json(pod)
        pod_id = self.crictl('runp', pod_json)
        ids = {}
        for cname, cpuset in containers:
            ids[cname] = self.create_container(pod_id, pod_json, cname, cpuset, command, mounts, envs)
        for cid in ids.values():
            self.crictl('start', cid)
        return pod_id, ids, pod

    def create_container(self, pod_id, pod_json, name, cpuset, command, mounts=(), envs=None, caps=()):
        """mounts: (host path, container path) pairs, read-only; envs:
        {name: value}; caps: capabilities added ("SYS_NICE")."""
        ctr = {'metadata': {'name': name}, 'image': {'image': BUSYBOX}, 'command': list(command),
               'log_path': f'{name}.log', 'linux': {'resources': {}},
               'mounts': [{'host_path': h, 'container_path': c, 'readonly': True} for h, c in mounts],
               'envs': [{'key': k, 'value': v} for k, v in (envs or {}).items()]}
        if caps:
            ctr['linux']['security_context'] = {'capabilities': {'add_capabilities': list(caps)}}
        if cpuset:
            ctr['linux']['resources']['cpuset_cpus'] = cpuset
        return self.crictl('create', pod_id, self.write_json(ctr), pod_json)

    def remove_pod(self, pod_id):
        self.crictl('stopp', pod_id)
        self.crictl('rmp', pod_id)

    def inspect(self, cid):
        return json.loads(self.crictl('inspect', cid))

    def container_log(self, pod, name):
        """What container name of pod (its config) wrote, without the CRI
        log format's timestamp, stream and tag."""
        path = os.path.join(pod['log_directory'], f'{name}.log')
        with open(path, encoding='utf-8', errors='replace') as f:
            return ''.join(line.split(' ', 3)[3] if line.count(' ') >= 3 else line for line in f)

    def container_pid(self, cid):
        return self.inspect(cid)['info']['pid']

    def cgroups_path(self, cid):
        return self.inspect(cid)['info']['runtimeSpec']['linux']['cgroupsPath']

    def shim_pids(self):
        """The pids of the shims this containerd started (their command line
        names its socket)."""
        pids = []
        for d in os.listdir('/proc'):
            if d.isdigit():
                try:
                    with open(f'/proc/{d}/cmdline', 'rb') as f:
                        argv = f.read().split(b'\0')
                except OSError:
                    continue
                if argv and argv[0].endswith(b'containerd-shim-runc-v2') and self.sock.encode() in argv:
                    pids.append(int(d))
        return pids

    def stop(self):
        """Removes every pod, stops containerd, unmounts what it left and
        removes its dir and the run's cgroups.  Returns what it could not clean."""
        if self.proc.poll() is None:
            self.crictl('rmp', '-fa', check=False, timeout=120)
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # shims outlive containerd: kill what is left of ours, by pid
        for pid in self.shim_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for m in sorted(_mounts_below(self.dir), key=len, reverse=True):
            subprocess.run(['umount', '-l', m], check=False)
        left = remove_cgroups(self.cgroup_top)
        if not _mounts_below(self.dir):
            shutil.rmtree(self.dir, ignore_errors=True)
        self.log.close()
        return left


class TestCgroup:
    """A cgroup of the run's own below its top cgroup in the cpuset
    hierarchy (cpuset.cpus 0-1) with a sleeping process in it, for pins
    that no container owns.  rel: its path below the cpuset mount."""

    def __init__(self, containerd, name):
        self.rel = f'{containerd.cgroup_top}/{name}'
        self.dir = os.path.join(CGROUP_ROOT, 'cpuset', self.rel)
        os.makedirs(self.dir)
        parent = os.path.dirname(self.dir)
        for d in (parent, self.dir):
            for knob in ('cpuset.mems', 'cpuset.cpus'):
                with open(os.path.join(os.path.dirname(d), knob), encoding='ascii') as f:
                    value = f.read().strip()
                with open(os.path.join(d, knob), 'w', encoding='ascii') as f:
                    f.write(value)
        self.proc = subprocess.Popen(['sleep', '600'])
        with open(os.path.join(self.dir, 'cgroup.procs'), 'w', encoding='ascii') as f:
            f.write(str(self.proc.pid))

    def remove(self):
        self.proc.kill()
        self.proc.wait()
        for _ in range(100):
            try:
                os.rmdir(self.dir)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.05)
