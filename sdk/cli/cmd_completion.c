/* cmd_completion.c — cubectl completion bash|zsh: a script that completes
 * commands, flags' values, kinds (cubectl kinds -o name), object names
 * (cubectl get KIND -o name), projects, contexts and the project's files
 * after ':' for cp and ls (cubectl ls -o name). The zsh script runs
 * the bash one through bashcompinit. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char usage[] =
    "Usage: cubectl completion bash|zsh\n"
    "\n"
    "Prints a shell completion script. Load it with\n"
    "  source <(cubectl completion bash)      # in ~/.bashrc\n"
    "  source <(cubectl completion zsh)       # in ~/.zshrc\n";

/* The words after which come kinds and then object names. */
static const char object_commands[] =
    "get|describe|delete|patch|logs|wait|stop|restart|renew|run|rerun|backfill|export";

static const char bash_body[] =
    "_cubectl_words() {\n"
    "    local IFS=$'\\n'\n"
    "    COMPREPLY=($(compgen -W \"$1\" -- \"$cur\"))\n"
    "}\n"
    "\n"
    "# Paths on the server (:PATH) of cp and ls. Bash splits \":da\" into \":\" and\n"
    "# \"da\" when COMP_WORDBREAKS holds ':' (the default): the words offered are\n"
    "# then what follows the colon.\n"
    "_cubectl_remote() {\n"
    "    local path pre=\"\" dir=\"\"\n"
    "    if [[ $cur == :* ]]; then path=\"${cur#:}\"; pre=\":\"\n"
    "    elif [[ $prev == : ]]; then path=\"$cur\"\n"
    "    else return\n"
    "    fi\n"
    "    [[ $path == */* ]] && dir=\"${path%/*}/\"\n"
    "    _cubectl_words \"$(cubectl \"$@\" ls -o name \":$dir\" 2>/dev/null | awk -v p=\"$pre$dir\" '{print p $0}')\"\n"
    "    if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == */ ]]; then\n"
    "        compopt -o nospace 2>/dev/null\n"
    "    fi\n"
    "}\n"
    "\n"
    "_cubectl() {\n"
    "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
    "    local i cmd=\"\" args=() global=()\n"
    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
    "        case \"${COMP_WORDS[i]}\" in\n"
    "        -s|--server|--token|-p|--project|--context)\n"
    "            global+=(\"${COMP_WORDS[i]}\" \"${COMP_WORDS[i+1]}\"); ((i++)) ;;\n"
    "        -*) ;;\n"
    "        *) if [[ -z $cmd ]]; then cmd=\"${COMP_WORDS[i]}\"; else args+=(\"${COMP_WORDS[i]}\"); fi ;;\n"
    "        esac\n"
    "    done\n"
    "    case \"$prev\" in\n"
    "    -p|--project)\n"
    "        _cubectl_words \"$(cubectl \"${global[@]}\" projects 2>/dev/null | awk 'NR > 1 {print $1}')\"\n"
    "        return ;;\n"
    "    --context)\n"
    "        _cubectl_words \"$(cubectl config get-contexts -o name 2>/dev/null)\"; return ;;\n"
    "    -f|--filename)\n"
    "        COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
    "    -o|--output)\n"
    "        _cubectl_words \"$(printf '%s\\n' table json yaml name jsonpath=)\"; return ;;\n"
    "    -s|--server|--token|-l|--selector|--field|-F|--role|--timeout|--duration)\n"
    "        return ;;\n"
    "    esac\n"
    "    if [[ $cur == -* ]]; then\n"
    "        _cubectl_words \"$(printf '%s\\n' --server --token --project --context --help)\"\n"
    "        return\n"
    "    fi\n"
    "    if [[ -z $cmd ]]; then\n"
    "        _cubectl_words \"$_cubectl_commands\"; return\n"
    "    fi\n"
    "    case \"$cmd\" in\n"
    "    config)\n"
    "        if ((${#args[@]} == 0)); then\n"
    "            _cubectl_words \"$(printf '%s\\n' get-contexts current-context use-context set-context delete-context)\"\n"
    "        else\n"
    "            case \"${args[0]}\" in\n"
    "            use-context|use|delete-context|get-contexts|set-context)\n"
    "                _cubectl_words \"$(cubectl config get-contexts -o name 2>/dev/null)\" ;;\n"
    "            esac\n"
    "        fi ;;\n"
    "    completion)\n"
    "        _cubectl_words \"$(printf '%s\\n' bash zsh)\" ;;\n"
    "    cp|ls)\n"
    "        _cubectl_remote \"${global[@]}\" ;;\n"
    "    members)\n"
    "        ((${#args[@]} == 0)) && _cubectl_words \"$(printf '%s\\n' list add set remove)\" ;;\n"
    "    OBJECT_COMMANDS)\n"
    "        if [[ $cur == */* ]]; then\n"
    "            _cubectl_words \"$(cubectl \"${global[@]}\" get \"${cur%%/*}\" -o name 2>/dev/null)\"\n"
    "        elif ((${#args[@]} == 0)); then\n"
    "            _cubectl_words \"$(cubectl \"${global[@]}\" kinds -o name 2>/dev/null)\"\n"
    "        else\n"
    "            _cubectl_words \"$(cubectl \"${global[@]}\" get \"${args[0]}\" -o name 2>/dev/null | sed 's|^[^/]*/||')\"\n"
    "        fi ;;\n"
    "    esac\n"
    "}\n"
    "complete -o default -F _cubectl cubectl\n";

static void print_bash(FILE *out)
{
    fputs("# cubectl completion for bash: source <(cubectl completion bash)\n"
          "_cubectl_commands=\"", out);
    for (size_t i = 0; i < cli_n_commands; i++)
        fprintf(out, "%s%s", i ? "\n" : "", cli_commands[i].name);
    fputs("\"\n\n", out);
    const char *at = strstr(bash_body, "OBJECT_COMMANDS");
    fwrite(bash_body, 1, (size_t)(at - bash_body), out);
    fputs(object_commands, out);
    fputs(at + strlen("OBJECT_COMMANDS"), out);
}

int cmd_completion(struct cli *cli, int argc, char **argv)
{
    int rc = cli_parse(cli, argc, argv, NULL, usage);
    if (rc != CLI_GO)
        return rc;
    if (cli->npos != 1 || (strcmp(cli->pos[0], "bash") && strcmp(cli->pos[0], "zsh")))
        return cli_usage_error(cli, "expected bash or zsh");
    if (!strcmp(cli->pos[0], "zsh"))
        fputs("#compdef cubectl\n"
              "# cubectl completion for zsh: source <(cubectl completion zsh)\n"
              "autoload -U +X bashcompinit && bashcompinit\n", stdout);
    print_bash(stdout);
    return EXIT_OK;
}
