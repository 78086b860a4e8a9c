# The shape of an oh-my-zsh ~/.zshrc, with its lib inlined
ZSH_CACHE_DIR="$HOME/.cache/zsh"
mkdir -p "$ZSH_CACHE_DIR"
autoload -U compaudit compinit colors add-zsh-hook
colors
compinit -i -C -d "$ZSH_CACHE_DIR/zcompdump"

# lib/history.zsh
HISTFILE="$HOME/.zsh_history"
HISTSIZE=50000
SAVEHIST=10000
setopt extended_history hist_expire_dups_first hist_ignore_dups hist_ignore_space hist_verify share_history

# lib/termsupport.zsh
function title {
  emulate -L zsh
  setopt prompt_subst
  [[ "$EMACS" == *term* ]] && return
  print -Pn "\e]2;${2:q}\a"
  print -Pn "\e]1;${1:q}\a"
}
function omz_termsupport_precmd { title "%15<..<%~%<<" "%n@%m:%~" }
function omz_termsupport_preexec {
  emulate -L zsh
  setopt extended_glob
  local CMD=${1[(wr)^(*=*|sudo|ssh|mosh|rake|-*)]:gs/%/%%}
  local LINE="${2:gs/%/%%}"
  title '$CMD' '%100>...>$LINE%<<'
}
add-zsh-hook precmd omz_termsupport_precmd
add-zsh-hook preexec omz_termsupport_preexec

# lib/key-bindings.zsh: keypad transmit mode while zle is active
if (( ${+terminfo[smkx]} )) && (( ${+terminfo[rmkx]} )); then
  function zle-line-init() { echoti smkx }
  function zle-line-finish() { echoti rmkx }
  zle -N zle-line-init
  zle -N zle-line-finish
fi
bindkey -e
bindkey '^r' history-incremental-search-backward

# lib/misc.zsh
autoload -Uz bracketed-paste-magic
zle -N bracketed-paste bracketed-paste-magic
autoload -Uz url-quote-magic
zle -N self-insert url-quote-magic
setopt multios long_list_jobs interactivecomments

# lib/git.zsh (a small part) and the robbyrussell theme
function git_prompt_info() {
  local ref
  ref=$(command git symbolic-ref --short HEAD 2> /dev/null) || return 0
  echo "%{$fg_bold[blue]%}git:(%{$fg[red]%}${ref}%{$fg_bold[blue]%})%{$reset_color%} "
}
setopt prompt_subst
PROMPT="%(?:%{$fg_bold[green]%}%1{➜%} :%{$fg_bold[red]%}%1{➜%} ) %{$fg[cyan]%}%c%{$reset_color%}"
PROMPT+=' $(git_prompt_info)'

# plugins
source /usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh
ZSH_AUTOSUGGEST_HIGHLIGHT_STYLE='fg=8'
source /usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh
