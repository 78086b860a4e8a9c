setopt nounset
setopt pipefail
PROMPT='%n@%m %1~ %# '
alias ll='ls -l'
