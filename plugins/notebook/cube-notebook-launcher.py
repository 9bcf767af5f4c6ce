# cube-notebook-launcher.py: the command of the Job a notebook runs as
# (installed beside cube-notebook.so; run as python3 -I -S with the
# arguments below, by the notebook's owner). It makes the server's secret
# itself, reports it to cubed with the Job's CUBE_TOKEN (POST
# .../notebooks/{name}/launch over a plain socket, accepted once per
# generation), links the project's shared directory into the home, and
# execs Jupyter or code-server on BIND (127.0.0.1, or 0.0.0.0 where cubed
# reaches servers on other machines) and the port the host allocated for the
# Job's spec.ports "http" (CUBE_PORT_HTTP), Jupyter accepting the Host names
# cubed is reached by: only cubed, which adds the secret, can use it. The
# secret thus never appears in the Job's spec, the command line or a log.
# Only os and socket: it starts fast.
#
# usage: cube-notebook-launcher.py IDE EXE BIND BASE_URL PROJECT NAME GENERATION
import os, socket, sys
ide, exe, bind, base, project, name, gen = sys.argv[1:8]
port = os.environ.get("CUBE_PORT_HTTP")
if not port:
    sys.exit('cube: CUBE_PORT_HTTP is not set (the Job has no spec.ports "http")')
tok = os.urandom(32 if ide == 'vscode' else 24).hex()
home = os.environ.get('HOME') or os.getcwd()
pd = os.environ.get('CUBE_PROJECT_DIR')
link = os.path.join(home, project)
if pd and os.path.isdir(pd) and not os.path.lexists(link):
    try:
        os.symlink(pd, link)
    except OSError:
        pass
hostport = os.environ['CUBE_API'].split('://', 1)[1].split('/', 1)[0]
host, _, p = hostport.rpartition(':')
body = '{"generation":%d,"token":"%s"}' % (int(gen), tok)
req = ('POST /api/v1/projects/%s/notebooks/%s/launch HTTP/1.0\r\nHost: %s\r\n'
       'Authorization: Bearer %s\r\nContent-Type: application/json\r\n'
       'Content-Length: %d\r\n\r\n%s' % (project, name, hostport,
       os.environ['CUBE_TOKEN'], len(body), body)).encode()
s = socket.create_connection((host.strip('[]'), int(p)), timeout=60)
s.sendall(req)
resp = b''
while True:
    d = s.recv(65536)
    if not d:
        break
    resp += d
s.close()
line = resp.split(b'\r\n', 1)[0]
if line.split(b' ')[1:2] != [b'200']:
    sys.exit('cube: the launch was refused: ' + line.decode(errors='replace'))
env = dict(os.environ)
if ide == 'vscode':
    env['HASHED_PASSWORD'] = tok
    args = [exe, '--bind-addr', bind + ':' + port, '--auth', 'password',
            '--disable-telemetry', '--disable-update-check', home]
else:
    env['JUPYTER_TOKEN'] = tok
    app = 'ServerApp' if 'lab' in os.path.basename(exe) else 'NotebookApp'
    args = [exe, '--no-browser', '--ip=' + bind, '--port=' + port,
            '--port-retries=0', '--%s.base_url=%s' % (app, base),
            '--%s.allow_remote_access=True' % app, '--%s.trust_xheaders=True' % app,
            '--notebook-dir=' + home]
os.execve(exe, args, env)
