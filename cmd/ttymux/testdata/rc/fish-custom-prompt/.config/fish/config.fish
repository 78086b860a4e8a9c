if status is-interactive
    set -g fish_greeting "Hello from fish, "(whoami)"!"
    abbr -a gco git checkout
    abbr -a gst git status
    alias ll 'ls -lh'
    set -gx EDITOR vim
end
