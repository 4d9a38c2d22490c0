// Package sandbox runs a shell command confined by the kernel (Landlock and
// seccomp) and kills every process it leaves behind.
//
// # How
//
// lathe runs itself again as a helper ([HelperArg], dispatched first thing
// in main, so that only commands pay for it). [Command] returns the
// [Cmd] that starts it; the [Policy] goes to the helper through an
// inherited pipe, never through the command's environment. The helper
//
//   - marks every descriptor above stderr close-on-exec, so that none
//     lathe inherited (a socket, a jobserver's pipe) reaches the command;
//   - makes itself a child subreaper (PR_SET_CHILD_SUBREAPER), so that
//     whatever the command starts stays its descendant however it
//     detaches (setsid, nohup, double fork);
//   - confines one thread of its own, never the main one, with Landlock
//     and a seccomp filter, and starts "bash -c COMMAND" from that thread,
//     which then exits: the command inherits the confinement, the helper
//     stays outside it. Since the kernel checks signals and ptrace
//     against a process's main thread, nothing in the sandbox can signal,
//     trace or read the helper;
//   - waits for bash, then kills (SIGKILL) and reaps every descendant
//     left, and puts back the protected paths (below);
//   - does the same at once when lathe closes its end of the control
//     pipe: on a timeout or cancel, and when lathe dies, whatever kills it
//     (SIGHUP, SIGKILL): the kernel closes the pipe then;
//   - writes a [Report]: exit status, what it killed (only processes it
//     signalled and saw go), what the sandbox blocked.
//
// No cgo, no root, no user namespace. Processes are tracked by the
// subreaper rather than a cgroup: cgroups are rarely writable without a
// delegated subtree (root or systemd), the subreaper always is. Its one
// weakness: if the helper itself is SIGKILLed, what it was tracking goes
// to init and lives on. Nothing in the sandbox can do that to it
// (Landlock ABI 6 keeps signals in; before it, the seccomp filter refuses
// those aimed at the helper).
//
// [Mode] Off runs the command through the same helper unconfined: the
// process tracking still applies.
//
// # Files
//
// Landlock rights are allow-lists inherited down the tree, so "read
// everywhere except ~/.ssh" is built by granting read on each sibling
// along the way down to the denied entry. The directories on that way
// keep only the right to be listed: their entries' names, and the names
// inside a denied directory, can be listed; nothing new can be created
// directly in them, even when they are writable (the workspace being the
// home directory, say); an entry that appears in them after the command
// started is unreadable. Symlinks met on the way are never granted:
// Landlock checks the file they lead to, wherever it is. The rules are
// computed by the helper for every command, so they follow the file
// system as it is.
//
// So a temp directory that holds the home directory cannot get new
// entries: [Policy].TempDir is a directory of the commands' own in it,
// made before the rules are computed and so writable, which they get as
// TMPDIR and GOTMPDIR.
//
// Writable directories get every right but making device nodes and
// device ioctls, so that not even root can make a disk appear in the
// workspace and write to it. A hard link to an outside file cannot be
// made (EXDEV); one that already exists in the workspace is a file of the
// workspace, and writable.
//
// Root is confined like anyone: Landlock ignores capabilities. The helper
// still drops from the command's bounding set the capabilities that would
// act around it (CAP_SYS_ADMIN and CAP_PERFMON read other processes'
// memory and environment despite Landlock, CAP_SYS_PTRACE, CAP_MKNOD,
// CAP_NET_RAW...), and the seccomp filter refuses mount, module, kexec,
// bpf, perf, keyring, open_by_handle_at and io_uring calls, and, when the
// helper has capabilities, chown and extended attribute changes.
//
// Landlock has no right for changing a file's mode or times: a command
// can chmod or touch (not write) files outside the writable directories
// that its user owns (root: any file). No seccomp filter can tell where a
// path leads, so this is not enforced. What the filter can tell is the
// mode itself: a set-user-ID or set-group-ID bit is refused wherever it
// would be set (chmod, fchmod, fchmodat, fchmodat2, mknod, creat, open
// and openat creating; openat2 gets ENOSYS), so that no program left in
// a writable directory runs later as the user for whoever starts it.
//
// # Environment
//
// The command gets lathe's environment without the variables
// [Policy].EnvDeny names or matches ([CredentialVars]: keys, tokens,
// passwords, the agents' sockets), but those EnvPass names; the helper
// strips them, so that no caller can forget to. Mode Off keeps them.
//
// # Protected paths
//
// .git stays writable (commits are normal work), but git runs what
// .git/hooks and .git/config name (hooks, core.hooksPath, core.fsmonitor,
// filters, aliases, pagers) the next time anyone uses the repository,
// outside the sandbox. Landlock cannot cut them out of a writable
// workspace. So [Policy].Protected paths are recorded before the command
// and, once every process of the command is gone (nothing can race the
// check), whatever changed is put back and reported as blocked; what the
// command created is removed, except what git itself makes and never
// runs ("git init": a .git directory, *.sample hooks, a config with only
// inert keys). The change is visible while the command runs, and a
// changed config is put back whole, even legitimate changes such as "git
// remote add". [DefaultPolicy] protects the workspace's repository (found
// upwards, including a linked worktree's main repository), core.hooksPath,
// the config files git reads and every file they include (a project's
// shared .gitconfig that .git/config includes is in the workspace), and
// what would lead git to other hooks and config: .git must stay what it
// was (a .git file naming another directory is removed), and no
// commondir file may appear or change. A .git may not appear either in a
// writable directory outside the workspace, nor in one above the
// workspace that a writable directory holds (the temp directory, for a
// workspace in it): git would take everything beneath for a repository
// and run what its config names; one made there is removed, whatever it
// holds. Repositories deeper in the workspace (submodules, or one the
// command creates in a subdirectory) are not protected.
//
// The writable cache directories are shared with builds run outside the
// sandbox, and a command can poison them (a build cache entry, an
// extracted module): code from them runs later unconfined. That is the
// price of build tools that work in the sandbox; point GOCACHE and the
// like into the workspace, or leave them out of the policy, where that
// matters.
//
// # Network
//
// Without [Policy].Network, the seccomp filter refuses every socket but
// Unix and netlink ones: TCP, UDP, raw, packet, SCTP, MPTCP, vsock,
// loopback included (nothing short of a network namespace can tell
// loopback from the rest); on Landlock ABI 4 and later, TCP bind and
// connect are refused by Landlock as well. Landlock ABI 9 can limit Unix
// sockets to those beneath writable directories; before it, connect(2)
// is refused on every socket, the command's own Unix sockets included, so
// that docker.sock and the like cannot be reached; a datagram sent with
// sendto or sendmsg to a named Unix socket outside (syslog's /dev/log,
// say) is not refused there. Abstract Unix sockets and signals out of the
// sandbox are refused by Landlock (ABI 6).
//
// # Blocked operations
//
// Refused sockets and connects are referred to the helper through
// seccomp user notification and always refused (so nothing the command
// changes in its memory afterwards matters); the helper reports them
// with the program's name and the address. Changes to protected paths are
// reported by the helper too. Landlock refusals leave no trace the helper
// could read without privileges, so [Cmd.Wait] adds those it recognises in
// the command's error output: a "Permission denied" naming a path the
// policy does not let it write or read. Those are marked Inferred: the
// output is the command's own, and a command that changed directory can
// make a relative path misread.
//
// # Support
//
// [Probe] reports the Landlock ABI, whether seccomp filters can be
// installed, and (through [Support.Describe]) what a policy enforces
// there; a [ProbeOptions] field forces "unsupported" for tests. The
// helper never runs a command less confined than its policy asks: it
// fails with [ErrUnsupported] instead. The caller decides what to do
// then ([Support.Resolve]: refuse, or warn and run with Mode Off).
//
// # The file tools
//
// lathe's file tools run in lathe's own process, which this package does
// not confine: they keep their os.Root confinement to the working
// directory. The sandbox is for what the shell runs, which os.Root cannot
// reach. The two differ on purpose: a command may read outside the
// workspace (compilers read the system), the file tools may not. What a
// command's change to a protected path would be put back from, the file
// tools may not write at all: they ask [Policy.Guarded] first.
package sandbox
