package gate

import (
	"slices"
	"strings"
	"sync"
)

// A command is the grammar of one read-only command.
type command struct {
	opts *optSet
	// anyOpt: every option of the tool only chooses what it prints (checked
	// against its manual: ls, cat, grep …), so a word the line does not
	// tell may stand where an option could.
	anyOpt bool
	posix  bool // options end at the first operand
	// maxOperands bounds the operands (uniq IN OUT writes OUT); -1: none.
	maxOperands int
	// check looks at the parsed words; "" when they only read.
	check func(p *parsedArgs) string
	// subs: the first operand names a subcommand, read by its own grammar
	// (global options before it; with global, also after it, as cobra
	// does). A subcommand missing from the map is held.
	subs   map[string]*command
	global bool
	// noSub is what the command does without a subcommand (nil: held).
	noSub *command
	// words, when set, reads the words itself (an expression grammar:
	// find, test, ip) instead of the option grammar.
	words func(args []arg) string
}

// roCommands are the commands known to only read, with their grammars:
// built by readOnlyCommands() on first use (see lazyRegexp for why not at init).
var (
	roCommands   map[string]*command
	commandsOnce sync.Once
)

// readOnlyCommands returns roCommands, built once.
func readOnlyCommands() map[string]*command {
	commandsOnce.Do(buildCommands)
	return roCommands
}

func cmd(spec string) *command { return &command{opts: opts(spec)} }

func anyOpts() *command { return &command{opts: opts(""), anyOpt: true} }

func (c *command) max(n int) *command { c.maxOperands = n; return c }

func (c *command) then(f func(p *parsedArgs) string) *command { c.check = f; return c }

func (c *command) posixly() *command { c.posix = true; return c }

func none() *command { return &command{opts: opts(""), maxOperands: -1} }

// operands are the subcommand's operand words that must be known.
func knownOperands(p *parsedArgs) string {
	for _, a := range p.operands {
		if !a.known {
			return "`" + a.s + "` is not known"
		}
	}
	return ""
}

func requireOne(names ...string) func(p *parsedArgs) string {
	return func(p *parsedArgs) string {
		if !p.has(names...) {
			return "only " + strings.Join(names, "/") + " reads"
		}
		return ""
	}
}

func buildCommands() {
	roCommands = map[string]*command{}
	for _, n := range strings.Fields(`ls ll cat tac head tail grep egrep fgrep zgrep zcat bzcat xzcat wc stat readlink realpath
		basename dirname md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum diff cmp comm cut tr nl od hexdump
		strings column which whereis lsattr getfacl ps pgrep pstree df du free uptime w who whoami id groups last
		uname arch nproc lscpu lsblk lsusb lspci lsmod vmstat iostat mpstat findmnt getent printenv tty cal netstat
		traceroute tracepath dig host jq echo true false : sleep`) {
		roCommands[n] = anyOpts()
	}
	roCommands["nslookup"] = anyOpts().then(func(p *parsedArgs) string {
		if len(p.operands) == 0 {
			return "nslookup without a name reads commands from the terminal"
		}
		return ""
	})
	roCommands["pwd"] = cmd("-L -P").max(-1)
	roCommands["cd"] = cmd("-L -P -e -@").max(1)
	roCommands["type"] = cmd("-a -f -p -P -t")
	roCommands["command"] = cmd("-v -V -p").then(requireOne("-v", "-V"))
	roCommands["history"] = cmd("").max(1).then(func(p *parsedArgs) string {
		for _, a := range p.operands {
			if !a.known || strings.Trim(a.s, "0123456789") != "" {
				return "history with an operand other than a count"
			}
		}
		return ""
	})
	roCommands["ulimit"] = cmd("-S -H -a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -P -R -T").max(-1)
	roCommands["locale"] = cmd("-a -m -v -k -c --all-locales --charmaps --verbose --keyword-name --category-name")
	roCommands["printf"] = cmd("!-v:").posixly().then(func(p *parsedArgs) string {
		if len(p.operands) > 0 && !p.operands[0].known {
			return "a format that is not known"
		}
		return ""
	})
	roCommands["env"] = cmd("-0 -i -u: --null --ignore-environment --unset= !-S: !--split-string= !-C: !--chdir= !--argv0= !-a: --debug -v").max(-1)
	roCommands["file"] = cmd(`-b -c -E -e: -F: -f: -h -i -k -L -l -m: -N -n -r -s -v -z -Z -0 -P: -S --mime --mime-type --mime-encoding
		--apple --extension --brief --keep-going --raw --dereference --no-dereference --special-files --uncompress
		--uncompress-noreport --separator= --files-from= --exclude= --exclude-quiet= --magic-file= --no-buffer --no-pad
		--print0 --parameter= --no-sandbox --checking-printout --help --version --list !-C !--compile !-p !--preserve-date`)
	roCommands["tree"] = cmd(`-a -d -l -f -x -L: -P: -I: --gitignore --ignore-case --matchdirs --metafirst --prune --info --infofile=
		--noreport --charset= --filelimit= --timefmt= -q -N -Q -p -u -g -s -h --si --du -D --inodes --device -F --dirsfirst
		--filesfirst -v -t -c -U -r --sort= -i -A -S -n -C -X -J -H: -T: --nolinks --hintro= --houtro= --fflinks --help
		--version !-o: !-R`)
	roCommands["xxd"] = cmd("-a -b -C -c: -E -e -g: -h -i -l: -n: -o: -p -r -s: -u -d -v").max(1)
	roCommands["sort"] = cmd(`-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z -k: -t: -S: --ignore-leading-blanks
		--dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort
		--numeric-sort --random-sort --random-source= --reverse --sort= --version-sort --check=? --merge --key=
		--field-separator= --buffer-size= --stable --unique --zero-terminated --parallel= --debug --files0-from= --help
		--version !-o: !--output= !--compress-program= !-T: !--temporary-directory= !--batch-size=`)
	roCommands["uniq"] = cmd(`-c -d -D -f: -i -s: -u -w: -z --count --repeated --all-repeated=? --skip-fields= --ignore-case
		--skip-chars= --unique --check-chars= --zero-terminated --group=? --help --version`).max(1)
	roCommands["date"] = cmd(`-d: -f: -I:: -R -r: -u --date= --file= --iso-8601=? --rfc-email --rfc-3339= --reference= --utc
		--universal --debug --help --version !-s: !--set=`).max(1).then(func(p *parsedArgs) string {
		for _, a := range p.operands {
			if !a.known || !strings.HasPrefix(a.s, "+") {
				return "date with an operand other than +FORMAT sets the clock"
			}
		}
		return ""
	})
	roCommands["dmesg"] = cmd(`-H -T -k -u -x -l: -f: -L:: -t -w -W -S -r -P -J -d -e -F: -s: -p --human --ctime --kernel
		--userspace --decode --level= --facility= --color=? --notime --follow --follow-new --syslog --raw --nopager --json
		--show-delta --reltime --since= --until= --time-format= --file= --buffer-size= --force-prefix --help --version
		!-c !-C !-D !-E !-n: !--clear !--read-clear !--console-off !--console-on !--console-level=`).max(-1)
	roCommands["journalctl"] = cmd(`-u: --unit= --user-unit= -n:: --lines=? -f --follow -e --pager-end -r --reverse -o: --output=
		-x --catalog -q --quiet -b:: --boot=? -k --dmesg -p: --priority= -g: --grep= --case-sensitive=? -S: --since= -U:
		--until= -t: --identifier= -T: --exclude-identifier= --facility= -a --all --no-pager --no-hostname --no-full -l
		--full -m --merge -D: --directory= --file= -M: --machine= --root= --image= --namespace= --system --user
		--list-boots --fields -F: --field= --disk-usage --utc --output-fields= --header --cursor= --after-cursor=
		--show-cursor --verify --list-catalog --dump-catalog --list-namespaces --invocation= -I --truncate-newline --help
		--version !--rotate !--vacuum-size= !--vacuum-time= !--vacuum-files= !--flush !--sync !--relinquish-var
		!--smart-relinquish-var !--setup-keys !--update-catalog !--cursor-file= !--new-id128 !--interval= !--force`).then(func(p *parsedArgs) string {
		// -n and -b read a count or boot as the next word too (journalctl -b -1):
		// the words left are matches (FIELD=VALUE) or paths, which it reads.
		return ""
	})
	roCommands["journalctl"].opts.num = true // -b -1, -n 50's "-1" style offsets
	roCommands["hostname"] = cmd(`-f -s -d -i -I -A -a -y -V --fqdn --long --short --domain --ip-address --all-ip-addresses
		--all-fqdns --alias --yp --nis --version --help !-F: !--file= !-b !--boot`).max(-1)
	roCommands["sensors"] = cmd("-c: -f -A -j -u -v --config-file= --fahrenheit --no-adapter -B --bus-list !-s !--set")
	roCommands["blkid"] = cmd("-d -h -i -k -l -L: -n: -o: -O: -p -s: -S: -t: -U: -u: -V !-c: !-g !-w:")
	roCommands["lastlog"] = cmd("-b: -t: -u: -h --before= --time= --user= --help !-C !--clear !-S !--set !-R: !--root=").max(-1)
	roCommands["lsof"] = cmd("-a -b -c: -d: -g:: -i:: -l -L:: -n -N -o:: -O -p: -P -r:: -R -s:: -S:: -t -T:: -u: -U -v -V -w -x:: -X -E -Q !-D: !-k: !-m: !-K::")
	roCommands["yq"] = cmd(`-o: --output-format= -p: --input-format= -r --unwrapScalar=? -e --exit-status -n --null-input -C -M
		-P --prettyPrint -I: --indent= -N --no-doc --header-preprocess=? --from-file= --expression= -0 --nul-output
		--no-colors --colors -j --tojson -y --yaml-output -c --compact-output -S --sort-keys -a --ascii-output --arg=2
		--argjson=2 --help --version !-i !--inplace !--in-place !-s: !--split-exp= !--split-exp-regex=`)
	roCommands["ping"] = cmd("-c: -i: -W: -w: -s: -t: -I: -q -n -4 -6 -D -O -v -a -A -U -R -r -M: -Q: -p: -l: -T: -B -L -m: -e: -V -h").max(1)
	roCommands["ss"] = cmd(`-h -V -H -n -r -a -l -o -e -m -p -i -s -t -u -d -w -x -S -4 -6 -0 -E -Z -z -b -M -O -T -f: -A: -N: -F:
		--help --version --no-header --numeric --resolve --all --listening --options --extended --memory --processes --info
		--tos --cgroup --summary --tcp --udp --dccp --raw --unix --sctp --vsock --xdp --tipc --mptcp --inet-sockets
		--packet --events --context --contexts --threads --oneline --bpf --family= --query= --socket= --net= --filter=
		!-K !--kill !-D: !--diag=`)
	roCommands["crontab"] = cmd("-l -u: !-e !-r !-i").max(-1).then(requireOne("-l"))
	roCommands["mount"] = cmd("-l --show-labels -t: --types=").max(-1)
	roCommands["service"] = anyOpts().then(func(p *parsedArgs) string {
		if len(p.opts) == 1 && p.opts[0].name == "--status-all" && len(p.operands) == 0 {
			return ""
		}
		if len(p.opts) == 0 && len(p.operands) == 2 && p.operands[0].known && p.operands[1].known && p.operands[1].s == "status" {
			return ""
		}
		return "service does more than status"
	})
	roCommands["nft"] = cmd("-a --handle -n --numeric -s --stateless -j --json -t --terse -N -y -e --echo -c --check -V -v --version !-f: !--file= !-i !--interactive !-I: !--includepath= !-D: !--define=").then(func(p *parsedArgs) string {
		var ws []string
		for _, a := range p.operands {
			if !a.known {
				return "`" + a.s + "` is not known"
			}
			ws = append(ws, a.s)
		}
		line := strings.Join(ws, " ")
		if f := strings.Fields(line); len(f) == 0 || f[0] != "list" || strings.ContainsAny(line, ";\n") {
			return "nft does more than list"
		}
		return ""
	})
	ipt := cmd("-L:: --list=? -S:: --list-rules=? -n --numeric -v --verbose -x --exact --line-numbers -t: --table= -w:: --wait=? -4 -6").then(func(p *parsedArgs) string {
		if len(p.operands) > 1 {
			return "more than a chain"
		}
		return requireOne("-L", "--list", "-S", "--list-rules")(p)
	})
	roCommands["iptables"], roCommands["ip6tables"] = ipt, ipt
	roCommands["dpkg"] = cmd(`-l --list -L --listfiles -s --status -S --search -p --print-avail --get-selections
		--print-architecture --print-foreign-architectures --admindir= --root= --no-pager`).then(requireOne("-l", "--list", "-L", "--listfiles", "-s", "--status", "-S", "--search", "-p", "--print-avail", "--get-selections", "--print-architecture", "--print-foreign-architectures"))
	roCommands["dpkg-query"] = cmd(`-l --list -W --show -f: --showformat= -L --listfiles -s --status -S --search -p --print-avail
		--admindir= --root= --load-avail --no-pager --help --version`)
	roCommands["rpm"] = cmd(`-q --query -a --all -l --list -i --info -f --file -c --configfiles -d --docfiles -R --requires
		--provides --whatprovides --whatrequires --changelog --scripts --triggers -p --package --last --state -s --dump
		--qf= --queryformat= --dbpath= --root= -v --quiet --nodigest --nosignature --version --help
		!-e !--erase !-U !--upgrade !-F !--freshen !--install !--import !--initdb !--rebuilddb !--setperms !--setugids
		!--restore !--eval= !-D: !--define= !--macros= !--pipe= !-E: !--rcfile= !--load= !--undefine=`).then(func(p *parsedArgs) string {
		if len(p.opts) == 0 || p.opts[0].name != "-q" && p.opts[0].name != "--query" {
			return "rpm without -q first"
		}
		return ""
	})
	aptList := cmd(`-a --all-versions --installed --upgradable --manual-installed --full --names-only -q --quiet -v --verbose
		--no-all-versions -n -f -i --recurse --no-recommends --no-suggests --no-pre-depends --no-enhances --no-conflicts
		--no-breaks --no-replaces --important --help --version !-o: !--option= !-c: !--config-file= !-t: !--target-release=`)
	roCommands["apt"] = &command{opts: aptList.opts, subs: subs(aptList, "list show search policy depends rdepends showsrc madison")}
	roCommands["apt-cache"] = &command{opts: aptList.opts, subs: subs(aptList, "show showpkg showsrc policy search depends rdepends madison pkgnames stats dump dumpavail unmet")}

	roCommands["test"] = &command{words: testWords}
	roCommands["["] = roCommands["test"]
	roCommands["sed"] = cmd(`-n --quiet --silent -e: --expression= -E -r --regexp-extended -s --separate -z --null-data -u
		--unbuffered -l: --line-length= --posix --debug --sandbox --help --version !-f: !--file= !-i:: !--in-place=? !--follow-symlinks`).then(sedCheck)
	roCommands["find"] = &command{words: findWords}
	roCommands["ip"] = &command{words: ipWords}
	roCommands["systemctl"] = systemctl()
	for _, n := range []string{"hostnamectl", "timedatectl", "localectl", "loginctl"} {
		roCommands[n] = systemdCtl(n)
	}
	roCommands["git"] = git()
	roCommands["docker"] = docker()
	roCommands["podman"] = roCommands["docker"]
	roCommands["kubectl"] = kubectl()
}

// subs makes subcommands that all read with the same grammar.
func subs(c *command, names string) map[string]*command {
	m := map[string]*command{}
	for _, n := range strings.Fields(names) {
		m[n] = c
	}
	return m
}

// systemdOpts are the options systemctl and its siblings share.
const systemdOpts = `-H: --host= -M: --machine= --no-pager --no-legend --legend=? --no-ask-password -p: --property= -P:
	--value -a --all -l --full --json=? -n: --lines= -o: --output= -q --quiet --system --user --help --version
	--plain -t: --type= --state= --show-types -r --recursive --reverse --after --before --with-dependencies --failed
	--timestamp= --check-inhibitors=? --root= --image= --static --transient --pretty --monitor --kill-whom=? --what=?`

func systemctl() *command {
	read := &command{opts: opts(systemdOpts)}
	c := &command{opts: opts(systemdOpts + ` !--firmware-setup !--boot-loader-menu= !--boot-loader-entry= !--reboot-argument=
		!-i !--ignore-inhibitors !--force !-f !--now !--global !--runtime !--job-mode= !--kill-value= !-s: !--signal=`)}
	c.subs = subs(read, `status show cat list-units list-unit-files list-sockets list-timers list-jobs list-dependencies
		list-machines list-automounts list-paths is-active is-enabled is-failed is-system-running get-default
		show-environment help`)
	c.global, c.noSub = true, read
	return c
}

func systemdCtl(name string) *command {
	read := &command{opts: opts(systemdOpts)}
	c := &command{opts: opts(systemdOpts + " !--adjust-system-clock"), global: true, noSub: read}
	switch name {
	case "hostnamectl":
		c.subs = subs(read, "status")
		for _, s := range strings.Fields("hostname icon-name chassis deployment location") {
			c.subs[s] = none() // with an operand, each sets it
		}
	case "timedatectl":
		c.subs = subs(read, "status show list-timezones timesync-status show-timesync")
	case "localectl":
		c.subs = subs(read, "status list-locales list-keymaps list-x11-keymap-models list-x11-keymap-layouts list-x11-keymap-variants list-x11-keymap-options")
	case "loginctl":
		c.subs = subs(read, "list-sessions session-status show-session list-users user-status show-user list-seats seat-status show-seat")
	}
	return c
}

// gitDiffOpts are the revision, pretty and diff options of git log, show
// and diff: all choose what is printed. --output writes a file,
// --ext-diff runs the configured program, and --textconv its filters.
const gitDiffOpts = `-# -n: --max-count= --skip= --since= --after= --until= --before= --author= --committer= --grep=
	--all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings -P --perl-regexp
	--merges --no-merges --min-parents= --max-parents= --first-parent --not --all --branches=? --tags=? --remotes=?
	--glob= --exclude= --reflog --single-worktree --ignore-missing --bisect --stdin --cherry-mark --cherry-pick
	--left-only --right-only --cherry --walk-reflogs -g --merge --boundary --simplify-by-decoration --full-history
	--dense --sparse --simplify-merges --ancestry-path=? --show-pulls --date-order --author-date-order --topo-order
	--reverse --no-walk=? --do-walk --pretty=? --format= --abbrev-commit --no-abbrev-commit --oneline --encoding=
	--expand-tabs=? --no-expand-tabs --notes=? --no-notes --show-notes=? --show-signature --relative-date --date=
	--parents --children --left-right --graph --show-linear-break=? --decorate=? --no-decorate --decorate-refs=
	--decorate-refs-exclude= --source --mailmap --no-mailmap --use-mailmap --no-use-mailmap --log-size --follow
	-L: --clear-decorations -p -u --patch -s --no-patch -U: --unified= --raw --patch-with-raw -t -m -c --cc
	--dd --remerge-diff --diff-merges= --no-diff-merges --combined-all-paths --name-only --name-status --stat=?
	--compact-summary --numstat --shortstat --dirstat=? --cumulative --dirstat-by-file=? --summary --patch-with-stat
	-z --full-index --binary --abbrev=? -B:: --break-rewrites=? -M:: --find-renames=? -C:: --find-copies=?
	--find-copies-harder -D --irreversible-delete -l: --diff-filter= -S: -G: --find-object= --pickaxe-all
	--pickaxe-regex -O: --skip-to= --rotate-to= -R --relative=? --no-relative -a --text --ignore-cr-at-eol
	--ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines -I: --ignore-matching-lines=
	--inter-hunk-context= -W --function-context --exit-code --quiet --no-ext-diff --no-textconv --ignore-submodules=?
	--src-prefix= --dst-prefix= --no-prefix --default-prefix --line-prefix= --ita-invisible-in-index
	--ita-visible-in-index --minimal --patience --histogram --anchored= --diff-algorithm= --word-diff=?
	--word-diff-regex= --color-words=? --color=? --no-color --color-moved=? --no-color-moved --color-moved-ws=
	--no-color-moved-ws --no-renames --rename-empty --no-rename-empty --check --ws-error-highlight= --submodule=?
	--cached --staged --merge-base --no-index --base -1 -2 -3 --ours --theirs -0 --output-indicator-new=
	--output-indicator-old= --output-indicator-context= --indent-heuristic --no-indent-heuristic --help
	!--output= !--ext-diff !--textconv`

func git() *command {
	d := cmd(gitDiffOpts)
	refs := func(spec string, list ...string) *command {
		// git branch and tag list with these options only; an operand
		// without --list names one to create.
		return cmd(spec).then(func(p *parsedArgs) string {
			if len(p.operands) > 0 && !p.has(list...) {
				return "an operand without --list creates one"
			}
			return ""
		})
	}
	c := &command{opts: opts(`-C: --git-dir= --work-tree= --namespace= --bare --no-pager -P -p --paginate --literal-pathspecs
		--glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-optional-locks --no-replace-objects --no-lazy-fetch
		--no-advice --attr-source= --version --help !-c: !--exec-path=? !--config-env= !--list-cmds= !--super-prefix=`), posix: true}
	c.subs = map[string]*command{
		"log": d, "show": d, "diff": d, "whatchanged": d,
		"status": cmd(`-s --short -b --branch --porcelain=? --long -v --verbose --untracked-files=? -u:: --ignored=?
			--ignore-submodules=? --column=? --no-column --ahead-behind --no-ahead-behind --renames --no-renames
			--find-renames=? -z --show-stash`),
		"blame": cmd(`-b --root --show-stats -L: -l -t -S: --reverse --first-parent -p --porcelain --line-porcelain
			--incremental --encoding= --contents= --date= --progress --no-progress -M:: -C:: --ignore-rev= --ignore-revs-file=
			--color-lines --color-by-age -h -c -f --show-name -n --show-number -s -e --show-email -w --abbrev=? --minimal`),
		"shortlog":  cmd("-n --numbered -s --summary -e --email --format= --group= -c --committer -w:: --all --no-merges --since= --until= --author="),
		"describe":  cmd("--all --tags --contains --abbrev= --candidates= --exact-match --debug --long --match= --exclude= --always --first-parent --dirty=? --broken=?"),
		"rev-parse": anyOpts(),
		"rev-list":  cmd(gitDiffOpts + " --count --objects --objects-edge --in-commit-order --no-object-names --timestamp --header --quiet --disk-usage=? --missing="),
		"ls-files":  cmd("-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed --directory --no-empty-directory --eol -z -t -v -f --full-name --recurse-submodules --abbrev=? --debug --deduplicate -x: --exclude= -X: --exclude-from= --exclude-per-directory= --exclude-standard --error-unmatch --with-tree= --format= --sparse"),
		"ls-tree":   cmd("-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev=? --format="),
		"cat-file":  cmd("-t -s -e -p --textconv --filters --path= --batch=? --batch-check=? --batch-all-objects --buffer --follow-symlinks --unordered --allow-unknown-type -Z"),
		"grep": cmd(`--cached --no-index --untracked --no-exclude-standard --exclude-standard --recurse-submodules -a --text
			--textconv --no-textconv -i --ignore-case -I --max-depth= -r --recursive --no-recursive -w --word-regexp -v
			--invert-match -h -H --full-name -E --extended-regexp -G --basic-regexp -P --perl-regexp -F --fixed-strings -n
			--line-number --column -l --files-with-matches --name-only -L --files-without-match -z --null -o --only-matching
			-c --count --color=? --no-color --break --heading -p --show-function -A: --after-context= -B: --before-context=
			-C: --context= -W --function-context -m: --max-count= --threads= -f: -e: --and --or --not --all-match -q --quiet
			!-O:: !--open-files-in-pager=?`),
		"reflog": cmd(gitDiffOpts).then(firstOperand("show")),
		"branch": refs("-l --list -a --all -r --remotes -v -vv --verbose --contains=? --no-contains=? --merged=? --no-merged=? --points-at= --sort= --format= --color=? --no-color --column=? --no-column --show-current --abbrev= --no-abbrev -i --ignore-case --omit-empty", "-l", "--list"),
		"tag":    refs("-l --list -n:: --contains=? --no-contains=? --merged=? --no-merged=? --points-at=? --sort= --format= --color=? --column=? --no-column -i --ignore-case --omit-empty", "-l", "--list"),
		"remote": cmd("-v --verbose").then(gitRemote),
		"stash": cmd("").then(func(p *parsedArgs) string {
			if len(p.operands) == 0 {
				return "git stash alone stashes"
			}
			return firstOperand("list", "show")(p)
		}),
		"show-ref":      cmd("--head --branches --tags --heads -d --dereference -s --hash=? --abbrev=? --verify -q --quiet --exists --exclude-existing=?"),
		"for-each-ref":  cmd("--count= --shell --perl --python --tcl --sort= --format= --color=? --points-at= --merged=? --no-merged=? --contains=? --no-contains=? --ignore-case --omit-empty --exclude= --include-root-refs --start-after= --stdin"),
		"merge-base":    cmd("-a --all --octopus --independent --is-ancestor --fork-point"),
		"name-rev":      cmd("--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always"),
		"count-objects": cmd("-v --verbose -H --human-readable"),
		"version":       cmd("--build-options"),
		"var":           cmd("-l"),
		"config":        cmd("-l --list --get --get-all --get-regexp --get-urlmatch --global --system --local --worktree -f: --file= --blob= --show-origin --show-scope -z --null --name-only --type= --bool --int --bool-or-int --path --expiry-date --default= --includes --no-includes").then(gitConfig),
	}
	return c
}

func firstOperand(ok ...string) func(p *parsedArgs) string {
	return func(p *parsedArgs) string {
		if len(p.operands) > 0 && (!p.operands[0].known || !slices.Contains(ok, p.operands[0].s)) {
			return "only " + strings.Join(ok, ", ") + " reads"
		}
		return ""
	}
}

func gitRemote(p *parsedArgs) string {
	if len(p.operands) == 0 {
		return ""
	}
	if a := p.operands[0]; a.known && (a.s == "show" || a.s == "get-url") {
		return ""
	}
	return "git remote does more than show"
}

func gitConfig(p *parsedArgs) string {
	if p.has("-l", "--list") && len(p.operands) == 0 {
		return ""
	}
	if p.has("--get", "--get-all", "--get-regexp", "--get-urlmatch") || len(p.operands) == 1 {
		return knownOperands(p)
	}
	if len(p.operands) >= 1 && p.operands[0].known && (p.operands[0].s == "get" || p.operands[0].s == "list") {
		return ""
	}
	return "git config with a value sets it"
}

func docker() *command {
	logs := cmd("-f --follow -t --timestamps --tail= -n: --since= --until= --details")
	inspect := cmd("-f: --format= -s --size --type=")
	ls := cmd("-a --all -q --quiet -n: --last= -l --latest -s --size --no-trunc -f: --filter= --format= --digests --tree")
	list := &command{opts: opts(""), posix: true, subs: map[string]*command{"ls": ls, "list": ls, "ps": ls, "inspect": inspect, "logs": logs, "history": cmd("-H --human=? -q --quiet --no-trunc --format=")}}
	c := &command{opts: opts(`--context= -c: -H: --host= --config= -D --debug -l: --log-level= --tls --tlsverify --tlscacert=
		--tlscert= --tlskey= --help -v --version`), posix: true}
	c.subs = map[string]*command{
		"ps": ls, "images": ls, "logs": logs, "inspect": inspect,
		"version": cmd("-f: --format="), "info": cmd("-f: --format="),
		"top": anyOpts(), "stats": cmd("-a --all --no-stream --no-trunc --format="), "port": cmd(""),
		"diff": cmd(""), "history": cmd("-H --human=? -q --quiet --no-trunc --format="),
		"container": list, "image": list, "volume": list, "network": list,
	}
	return c
}

func kubectl() *command {
	get := cmd(`-o: --output= -l: --selector= -A --all-namespaces -w --watch --watch-only --show-labels --field-selector=
		--sort-by= --no-headers -L: --label-columns= --show-kind --chunk-size= --raw= --subresource= -f: --filename= -R
		--recursive -k: --kustomize= --ignore-not-found --template= --output-watch-events --server-print
		--allow-missing-template-keys --show-managed-fields`)
	logs := cmd(`-f --follow -p --previous -c: --container= --all-containers --tail= --since= --since-time= --timestamps
		-l: --selector= --prefix --max-log-requests= --pod-running-timeout= --limit-bytes= --ignore-errors
		--insecure-skip-tls-verify-backend --all-pods`)
	top := &command{opts: opts(""), subs: subs(cmd("-A --all-namespaces --containers -l: --selector= --sort-by= --no-headers --use-protocol-buffers --show-capacity"), "pod pods po node nodes no")}
	c := &command{opts: opts(`-n: --namespace= --context= --cluster= --user= --kubeconfig= -s: --server= --token=
		--insecure-skip-tls-verify --request-timeout= -v: --v= --as= --as-group= --as-uid= --match-server-version
		--tls-server-name= --certificate-authority= --client-certificate= --client-key= --username= --password=
		--warnings-as-errors --disable-compression --help -h !--profile= !--profile-output= !--log-file= !--cache-dir=
		!--log-dir= !--alsologtostderr !--logtostderr`), global: true}
	c.subs = map[string]*command{
		"get": get, "describe": cmd("-l: --selector= -A --all-namespaces -f: --filename= -R --recursive --show-events=? --chunk-size= -k: --kustomize="),
		"logs": logs, "top": top,
		"explain":       cmd("--recursive --api-version= --output= -o:"),
		"version":       cmd("--client --short -o: --output="),
		"api-resources": cmd("-o: --output= --namespaced=? --verbs= --api-group= --sort-by= --no-headers --cached --categories="),
		"api-versions":  cmd(""),
		"cluster-info":  cmd("").max(-1),
		"config":        {opts: opts(""), subs: map[string]*command{"view": cmd("--minify --raw --flatten -o: --output= --template="), "get-contexts": cmd("-o: --output= --no-headers"), "get-clusters": cmd(""), "get-users": cmd(""), "current-context": cmd("")}},
		"auth":          {opts: opts(""), subs: map[string]*command{"can-i": cmd("-A --all-namespaces --list --no-headers --subresource= -q --quiet"), "whoami": cmd("-o: --output=")}},
	}
	return c
}

// ipObjects are ip's objects whose show and list only read.
var ipObjects = set("a", "ad", "addr", "address", "l", "li", "link", "r", "ro", "route", "n", "neigh", "neighbor",
	"neighbour", "ru", "rule", "m", "maddr", "maddress", "netns", "ntable", "tunnel", "tuntap", "nexthop", "nh", "vrf",
	"addrlabel", "mroute", "mr")

var ipOptions = set("-4", "-6", "-0", "-s", "-stats", "-statistics", "-d", "-details", "-h", "-human", "-human-readable",
	"-iec", "-j", "-json", "-p", "-pretty", "-o", "-oneline", "-r", "-resolve", "-c", "-color", "-br", "-brief", "-t",
	"-timestamp", "-ts", "-tshort", "-a", "-all", "-N", "-Numeric")

// ipWords reads ip [OPTIONS] OBJECT [show|list|lst|get …].
func ipWords(args []arg) string {
	i := 0
	for ; i < len(args) && (!args[i].known || strings.HasPrefix(args[i].s, "-")); i++ {
		a := args[i]
		switch {
		case !a.known:
			return "`" + a.s + "` is not known"
		case a.s == "-n" || a.s == "-netns" || a.s == "-f" || a.s == "-family":
			i++ // the value
		case !ipOptions[a.s] && !strings.HasPrefix(a.s, "-color="):
			return "ip option " + a.s + " is not known"
		}
	}
	ops := args[min(i, len(args)):]
	if len(ops) == 0 {
		return "ip without an object"
	}
	if !ops[0].known || !ipObjects[ops[0].s] {
		return "ip " + ops[0].s + " is not known to read"
	}
	if len(ops) == 1 {
		return ""
	}
	if ops[1].known {
		switch ops[1].s {
		case "show", "list", "lst", "ls", "get":
			return ""
		}
	}
	return "ip " + ops[0].s + " " + ops[1].s + " may change something"
}

// findPrimaries are find's tests and read-only actions, with how many
// words each takes. -exec, -ok, -delete and -fprint… are not here.
var findPrimaries = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
	"-type": 1, "-xtype": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-nouser": 0,
	"-nogroup": 0, "-empty": 0, "-links": 1, "-inum": 1, "-samefile": 1, "-lname": 1, "-ilname": 1, "-readable": 0,
	"-writable": 0, "-executable": 0, "-true": 0, "-false": 0, "-print": 0, "-print0": 0, "-printf": 1, "-ls": 0,
	"-prune": 0, "-quit": 0, "-maxdepth": 1, "-mindepth": 1, "-depth": 0, "-d": 0, "-mount": 0, "-xdev": 0,
	"-follow": 0, "-noleaf": 0, "-daystart": 0, "-regextype": 1, "-ignore_readdir_race": 0,
	"-noignore_readdir_race": 0, "-warn": 0, "-nowarn": 0, "-fstype": 1, "-used": 1, "-context": 1, "-not": 0,
	"-a": 0, "-and": 0, "-o": 0, "-or": 0, "(": 0, ")": 0, "!": 0, ",": 0, "-help": 0, "--help": 0, "-version": 0,
	"--version": 0,
}

var findNewerXY = lazyRE(`^-newer[aBcmt][aBcmt]$`)

// findWords reads find [-H|-L|-P|-D …|-O…] [PATH…] [EXPRESSION]: every
// word of the expression must be a known primary (its values any word).
func findWords(args []arg) string {
	i := 0
	for ; i < len(args) && args[i].known; i++ {
		switch s := args[i].s; {
		case s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O"):
			continue
		case s == "-D":
			i++
			continue
		}
		break
	}
	expr := false
	for ; i < len(args); i++ {
		a := args[i]
		if !a.known {
			if a.dash || expr {
				return "`" + a.s + "` may be a find action"
			}
			continue // a starting point
		}
		n, ok := findPrimaries[a.s]
		if !ok && findNewerXY.MatchString(a.s) {
			n, ok = 1, true
		}
		if !ok {
			if !expr && !strings.HasPrefix(a.s, "-") {
				continue // a starting point
			}
			return "find " + a.s + " is not known to only read"
		}
		expr = true
		i += n
	}
	return ""
}

// testUnary and testBinary are the operators of test and [ that only look
// (-v and -R evaluate a subscript, which may run a command).
var testUnary = set("-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G",
	"-L", "-N", "-O", "-S", "-z", "-n", "-a", "-o", "!", "(", ")")

var testBinary = set("=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge")

func testWords(args []arg) string {
	for _, a := range args {
		if !a.known {
			if a.multi || a.dash {
				return "`" + a.s + "` may become a test operator"
			}
			continue
		}
		if strings.HasPrefix(a.s, "-") && !testUnary[a.s] && !testBinary[a.s] && strings.Trim(a.s, "-0123456789") != "" {
			return "test " + a.s + " is not known to only look"
		}
	}
	return ""
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
