"""Stands in for `python -m vllm.entrypoints.openai.api_server` in process-handling tests:
takes the same flags, starts a child (as vLLM starts its engine), answers readiness probes,
and writes both pids to --pid-file so a test can check that stopping kills them all."""

import argparse
import json
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int)
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--served-model-name")
parser.add_argument("--pid-file")
parser.add_argument("--exit-at-once", type=int, default=None)
args, _ = parser.parse_known_args()
if args.exit_at_once is not None:
    print("fake vLLM: refusing to start", flush=True)
    sys.exit(args.exit_at_once)

engine = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/health":
            body = b""
        elif self.path == "/v1/models":
            body = json.dumps({"data": [{"id": args.served_model_name}]}).encode()
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


server = ThreadingHTTPServer((args.host, args.port), Handler)
with open(args.pid_file, "w") as f:
    f.write(f"{engine.pid} {__import__('os').getpid()}")
server.serve_forever()
