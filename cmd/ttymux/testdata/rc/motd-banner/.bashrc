PS1='\u@\h:\w\$ '
if [[ $- == *i* ]]; then
  printf '\033[1;34m'
  cat <<'BANNER'
  _          _ _
 | |__   ___| | | ___
 | '_ \ / _ \ | |/ _ \
 | | | |  __/ | | (_) |
 |_| |_|\___|_|_|\___/
BANNER
  printf '\033[0m'
  echo "Welcome, $USER. Today is $(date '+%A %d %B %Y')."
  echo "Uptime: $(uptime -p 2>/dev/null || uptime)"
  df -h / | awk 'NR==2 {print "Disk: " $3 " used of " $2}'
  quotes=("Talk is cheap. Show me the code." "Simplicity is prerequisite for reliability." "Premature optimization is the root of all evil.")
  echo "${quotes[RANDOM % ${#quotes[@]}]}"
  echo
fi
