if [ -f /usr/share/powerline/bindings/bash/powerline.sh ]; then
    POWERLINE_BASH_CONTINUATION=1
    POWERLINE_BASH_SELECT=1
    . /usr/share/powerline/bindings/bash/powerline.sh
fi
