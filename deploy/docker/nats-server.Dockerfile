# nats-server, built from the Go module guardstream depends on, with the
# cluster config. Build it with deploy/build.sh: the binary is compiled on the
# host (static, CGO_ENABLED=0) and copied in; nothing is pulled.
FROM scratch
COPY bin/nats-server /nats-server
COPY nats.conf /etc/nats/nats.conf
# An empty /data owned by the server's user: a named volume mounted there
# starts with that owner.
COPY --chown=65532:65532 data/ /data/
USER 65532:65532
VOLUME /data
# clients, cluster routes, monitoring
EXPOSE 4222 6222 8222
ENTRYPOINT ["/nats-server", "--config", "/etc/nats/nats.conf"]
