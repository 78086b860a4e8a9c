function fish_user_key_bindings
    fzf_key_bindings
end
