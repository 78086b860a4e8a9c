# man-40x120 40x120: tmux's screen (tmux 3.3a) at each checkpoint
@ 3173
BASH(1)                                        General Commands Manual                                        BASH(1)

NAME
       bash - GNU Bourne-Again SHell

SYNOPSIS
       bash [options] [command_string | file]

COPYRIGHT
       Bash is Copyright (C) 1989-2022 by the Free Software Foundation, Inc.

DESCRIPTION
       Bash  is  an sh-compatible command language interpreter that executes commands read from the standard input or
       from a file.  Bash also incorporates useful features from the Korn and C shells (ksh and csh).

       Bash is intended to be a conformant implementation of the Shell and Utilities portion of the IEEE POSIX speci‐
       fication (IEEE Standard 1003.1).  Bash can be configured to be POSIX-conformant by default.

OPTIONS
       All  of the single-character shell options documented in the description of the set builtin command, including
       -o, can be used as options when the shell is invoked.  In addition, bash interprets the following options when
       it is invoked:

       -c        If  the  -c  option  is  present,  then  commands  are  read from the first non-option argument com‐
                 mand_string.  If there are arguments after the command_string, the first argument is assigned to  $0
                 and  any  remaining  arguments are assigned to the positional parameters.  The assignment to $0 sets
                 the name of the shell, which is used in warning and error messages.
       -i        If the -i option is present, the shell is interactive.
       -l        Make bash act as if it had been invoked as a login shell (see INVOCATION below).
       -r        If the -r option is present, the shell becomes restricted (see RESTRICTED SHELL below).
       -s        If the -s option is present, or if no arguments remain after option processing,  then  commands  are
                 read  from the standard input.  This option allows the positional parameters to be set when invoking
                 an interactive shell or when reading input through a pipe.
       -v        Print shell input lines as they are read.
       -x        Print commands and their arguments as they are executed.
       -D        A list of all double-quoted strings preceded by $ is printed on the standard output.  These are  the
                 strings  that  are  subject to language translation when the current locale is not C or POSIX.  This
                 implies the -n option; no commands will be executed.
       [-+]O [shopt_option]
 Manual page bash(1) line 1 (press h for help or q to quit)
@ 13611
       READLINE_ARGUMENT
              Any  numeric  argument  given to a readline command that was defined using "bind -x" (see SHELL BUILTIN
              COMMANDS below) when it was invoked.
       READLINE_LINE
              The contents of the readline line buffer, for use with "bind -x" (see SHELL BUILTIN COMMANDS below).
       READLINE_MARK
              The position of the mark (saved insertion point) in the readline line buffer, for use  with  "bind  -x"
              (see  SHELL BUILTIN COMMANDS below).  The characters between the insertion point and the mark are often
              called the region.
       READLINE_POINT
              The position of the insertion point in the readline line buffer, for use  with  "bind  -x"  (see  SHELL
              BUILTIN COMMANDS below).
       REPLY  Set to the line of input read by the read builtin command when no arguments are supplied.
       SECONDS
              Each time this parameter is referenced, it expands to the number of seconds since shell invocation.  If
              a value is assigned to SECONDS, the value returned upon subsequent references is the number of  seconds
              since  the  assignment plus the value assigned.  The number of seconds at shell invocation and the cur‐
              rent time are always determined by querying the system clock.  If SECONDS is unset, it loses  its  spe‐
              cial properties, even if it is subsequently reset.
       SHELLOPTS
              A  colon-separated list of enabled shell options.  Each word in the list is a valid argument for the -o
              option to the set builtin command (see SHELL BUILTIN COMMANDS below).  The options appearing  in  SHEL‐
              LOPTS  are those reported as on by set -o.  If this variable is in the environment when bash starts up,
              each shell option in the list will be enabled before reading any startup files.  This variable is read-
              only.
       SHLVL  Incremented by one each time an instance of bash is started.
       SRANDOM
              This  variable  expands  to a 32-bit pseudo-random number each time it is referenced. The random number
              generator is not linear on systems that support /dev/urandom or arc4random, so each returned number has
              no  relationship to the numbers preceding it.  The random number generator cannot be seeded, so assign‐
              ments to this variable have no effect.  If SRANDOM is unset, it loses its special properties,  even  if
              it is subsequently reset.
       UID    Expands to the user ID of the current user, initialized at shell startup.  This variable is readonly.

       The  following  variables  are  used by the shell.  In some cases, bash assigns a default value to a variable;
       these cases are noted below.

       BASH_COMPAT
              The value is used to set the shell's compatibility level.  See SHELL COMPATIBILITY MODE below for a de‐
 Manual page bash(1) line 783 (press h for help or q to quit)
@ 17760
              scription  of  the  various  compatibility levels and their effects.  The value may be a decimal number
              (e.g., 4.2) or an integer (e.g., 42) corresponding to the desired compatibility level.  If  BASH_COMPAT
              is unset or set to the empty string, the compatibility level is set to the default for the current ver‐
              sion.  If BASH_COMPAT is set to a value that is not one of the valid compatibility  levels,  the  shell
              prints  an  error message and sets the compatibility level to the default for the current version.  The
              valid values correspond to the compatibility levels described below  under  SHELL  COMPATIBILITY  MODE.
              For  example, 4.2 and 42 are valid values that correspond to the compat42 shopt option and set the com‐
              patibility level to 42.  The current version is also a valid value.
       BASH_ENV
              If this parameter is set when bash is executing a shell script, its value is interpreted as a  filename
              containing  commands  to  initialize the shell, as in ~/.bashrc.  The value of BASH_ENV is subjected to
              parameter expansion, command substitution, and arithmetic expansion before being interpreted as a file‐
              name.  PATH is not used to search for the resultant filename.
       BASH_XTRACEFD
              If  set to an integer corresponding to a valid file descriptor, bash will write the trace output gener‐
              ated when set -x is enabled to that file descriptor.  The file descriptor is closed when  BASH_XTRACEFD
              is  unset or assigned a new value.  Unsetting BASH_XTRACEFD or assigning it the empty string causes the
              trace output to be sent to the standard error.  Note that setting BASH_XTRACEFD to 2 (the standard  er‐
              ror file descriptor) and then unsetting it will result in the standard error being closed.
       CDPATH The  search  path for the cd command.  This is a colon-separated list of directories in which the shell
              looks for destination directories specified by the cd command.  A sample value is ".:~:/usr".
       CHILD_MAX
              Set the number of exited child status values for the shell to remember.  Bash will not allow this value
              to be decreased below a POSIX-mandated minimum, and there is a maximum value (currently 8192) that this
              may not exceed.  The minimum value is system-dependent.
       COLUMNS
              Used by the select compound command to determine the terminal width when printing selection lists.  Au‐
              tomatically set if the checkwinsize option is enabled or in an interactive shell upon receipt of a SIG‐
              WINCH.
       COMPREPLY
              An array variable from which bash reads the possible completions generated by a shell function  invoked
              by  the  programmable completion facility (see Programmable Completion below).  Each array element con‐
              tains one possible completion.
       EMACS  If bash finds this variable in the environment when the shell starts with value "t",  it  assumes  that
              the shell is running in an Emacs shell buffer and disables line editing.
       ENV    Expanded and executed similarly to BASH_ENV (see INVOCATION above) when an interactive shell is invoked
              in posix mode.
       EXECIGNORE
              A colon-separated list of shell patterns (see Pattern Matching) defining the list of  filenames  to  be
 Manual page bash(1) line 822 (press h for help or q to quit)
@ 17798

[exited]






































