function fish_prompt --description 'Write out the prompt'
    set -l last_status $status
    set -l status_color (set_color green)
    if test $last_status -ne 0
        set status_color (set_color red)
    end
    echo -n (set_color cyan)(prompt_pwd)(set_color normal)
    fish_vcs_prompt
    echo -n ' '$status_color'❯'(set_color normal)' '
end
