PS1='\u@\h:\w\$ '
# Audit: log every command with its exit status; users must not turn it off
export PROMPT_COMMAND='RETRN_VAL=$?; echo "$(date "+%F %T") $(whoami) [$$]: $(history 1 | sed "s/^[ ]*[0-9]\+[ ]*//") [$RETRN_VAL]" >> ~/.command_audit.log'
readonly PROMPT_COMMAND
