#!/usr/bin/env python3
"""Adds lockfile entries for platform-specific optional packages that this machine's registry does not serve.

`npm ci` refuses a lockfile that lacks an entry for any declared optional dependency, even one for another
platform (npm/cli#9846). The registry reachable here serves only the packages of this platform, so `npm install`
cannot record the others. The entries added carry name, version, os, cpu and libc only: npm skips them on this
platform without fetching them. Run after `npm install` whenever dependencies change:

    npm ci --dry-run --ignore-scripts 2>&1 | python3 scripts/lock-foreign-optionals.py
"""
import json
import re
import sys

OS = {'darwin': 'darwin', 'windows': 'win32', 'win32': 'win32', 'android': 'android', 'freebsd': 'freebsd',
      'linux': 'linux', 'openharmony': 'openharmony'}
CPU = {'64': 'x64', 'x64': 'x64', 'arm64': 'arm64', 'arm': 'arm', 'ia32': 'ia32', 'loong64': 'loong64',
       'ppc64': 'ppc64', 'riscv64': 'riscv64', 's390x': 's390x'}


def platform(name):
    parts = name.split('/')[-1].split('-')
    for i, part in enumerate(parts):
        if part in OS and i + 1 < len(parts) and parts[i + 1] in CPU:
            rest = parts[i + 2:]
            libc = 'musl' if any('musl' in r for r in rest) else 'glibc' if any('gnu' in r for r in rest) else None
            return OS[part], CPU[parts[i + 1]], libc
    raise SystemExit(f'cannot tell the platform of {name}')


def main():
    missing = re.findall(r'Missing: (@?[^@\s]+)@\S* from lock file', sys.stdin.read())
    with open('package-lock.json') as f:
        lock = json.load(f)
    packages = lock['packages']
    for name in missing:
        parent = next(p for p in packages.values() if name in (p.get('optionalDependencies') or {}))
        os_name, cpu, libc = platform(name)
        entry = {'version': parent['optionalDependencies'][name], 'cpu': [cpu]}
        if parent.get('dev'):
            entry['dev'] = True
        if libc:
            entry['libc'] = [libc]
        entry.update({'optional': True, 'os': [os_name]})
        packages[f'node_modules/{name}'] = entry
    lock['packages'] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != '', kv[0])))
    with open('package-lock.json', 'w') as f:
        json.dump(lock, f, indent=2)
        f.write('\n')
    print(f'added {len(missing)} entries')


main()
