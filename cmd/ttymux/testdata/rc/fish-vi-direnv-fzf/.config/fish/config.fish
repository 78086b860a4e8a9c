set -g fish_greeting
fish_vi_key_bindings
if status is-interactive
    direnv hook fish | source
end
