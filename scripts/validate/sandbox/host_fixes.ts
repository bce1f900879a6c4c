/**
 * What the host check says is missing, and how to fix it (docs/agents.md, "What a validator host
 * needs"): one entry per problem, so that an operator fixes them all in one go.
 */

export interface HostProblem {
  missing: string;
  fix: string;
}

const APPARMOR_PROFILE = "abi <abi/4.0>,\\ninclude <tunables/global>\\n" +
  "profile bwrap /usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n";

export const FIXES = {
  noBwrap: (): HostProblem => ({
    missing: "bubblewrap (bwrap) is not installed",
    fix: "apt-get install bubblewrap (Debian, Ubuntu) or dnf install bubblewrap (Fedora)",
  }),
  oldBwrap: (found: string): HostProblem => ({
    missing: `bubblewrap 0.8.0 or later is needed (found ${found})`,
    fix: "install bubblewrap 0.8.0 or later (Debian 12, Ubuntu 24.04 and Fedora 38 ship it)",
  }),
  noPython: (python: string, why: string): HostProblem => ({
    missing: `the interpreter ${python} cannot be run: ${why}`,
    fix: "apt-get install python3 (or dnf install python3), then --python /usr/bin/python3",
  }),
  notSystemPython: (python: string, real: string): HostProblem => ({
    missing: `${python} is not a system interpreter (it is ${real}, outside /usr)`,
    fix: "use the system's Python 3.11 or later: --python /usr/bin/python3",
  }),
  oldPython: (python: string, version: string): HostProblem => ({
    missing: `${python} is Python ${version}; agents need 3.11 or later`,
    fix: "install Python 3.11 or later from the distribution and pass it with --python",
  }),
  noSeccomp: (python: string): HostProblem => ({
    missing: `the seccomp module (libseccomp's Python binding) is not installed for ${python}`,
    fix: "apt-get install python3-seccomp (Debian, Ubuntu) or dnf install python3-libseccomp (Fedora)",
  }),
  userNamespacesOff: (setting: string, value: string): HostProblem => ({
    missing: `user namespaces are disabled (${setting} = 0)`,
    fix: `sysctl -w ${setting}=${value}, and the same line in /etc/sysctl.d/90-fgw.conf to keep it`,
  }),
  appArmor: (): HostProblem => ({
    missing: "AppArmor refuses user namespaces to bubblewrap (Ubuntu 24.04: " +
      "kernel.apparmor_restrict_unprivileged_userns = 1)",
    fix: `printf '${APPARMOR_PROFILE}' > /etc/apparmor.d/bwrap && apparmor_parser -r /etc/apparmor.d/bwrap ` +
      "(or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)",
  }),
  noAgentUser: (why: string): HostProblem => ({
    missing: `a validator running as root needs the agent user: ${why}`,
    fix: "useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin fgw-agent",
  }),
  trialFailed: (why: string): HostProblem => ({
    missing: `bubblewrap could not start a run: ${why}`,
    fix: 'see docs/agents.md, "What a validator host needs"; deno task validate --self-test shows each check',
  }),
} as const;
