"""A loopback TCP proxy that cuts its first connection after N response bytes: a real drop mid-stream."""

from __future__ import annotations

import socket
import threading


class CuttingProxy:
    def __init__(self, upstream_port: int, cut_after: int) -> None:
        self.upstream_port, self.cut_after = upstream_port, cut_after
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                down, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            limit = self.cut_after if self.connections == 1 else None
            up = socket.create_connection(("127.0.0.1", self.upstream_port))
            threading.Thread(target=self._pump, args=(down, up, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, down, limit), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, limit: int | None) -> None:
        sent = 0
        try:
            while True:
                data = src.recv(4096)
                if not data:
                    break
                if limit is not None and sent + len(data) >= limit:
                    dst.sendall(data[: limit - sent])
                    break
                dst.sendall(data)
                sent += len(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._closed = True
        self._listener.close()


class ScriptedServer:
    """A loopback HTTP server that answers connection i with replies[i] (the last one for every later
    connection) and then closes it: a reply cut short is a server or proxy that died mid-response.

    It reads the request head before replying, so the close is a clean FIN, never a reset for unread bytes."""

    def __init__(self, replies: list[bytes]) -> None:
        self.replies = replies
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            reply = self.replies[min(self.connections, len(self.replies) - 1)]
            self.connections += 1
            with conn:
                try:
                    conn.settimeout(10)
                    head = b""
                    while b"\r\n\r\n" not in head:
                        data = conn.recv(65536)
                        if not data:
                            break
                        head += data
                    conn.sendall(reply)
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self._listener.close()
