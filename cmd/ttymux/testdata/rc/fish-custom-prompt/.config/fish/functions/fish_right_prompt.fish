function fish_right_prompt
    set_color brblack
    date '+%H:%M:%S'
    set_color normal
end
