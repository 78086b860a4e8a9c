parse_git_branch() {
  git branch 2>/dev/null | sed -e '/^[^*]/d' -e 's/* \(.*\)/ (\1)/'
}
last_status_face() {
  if [ "$1" -eq 0 ]; then printf '\033[32m:)\033[0m'; else printf '\033[31m:( %s\033[0m' "$1"; fi
}
PS1='$(last_status_face $?) \[\033[33m\]\u@\h\[\033[0m\] \w$(parse_git_branch) [\j]\n\$ '
