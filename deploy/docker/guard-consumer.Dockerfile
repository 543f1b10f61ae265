# guard-consumer, static, on nothing. Build it with deploy/build.sh. It needs
# -nats-url (a container has no data directory for the embedded server) and
# -http 0.0.0.0:8280 to be probed from outside.
FROM scratch
COPY bin/guard-consumer /guard-consumer
# Empty directories owned by guard-consumer's user, for named volumes to
# start with that owner: 'creds setup' (compose's auth-init) writes the
# deployment into /auth/private and each process's files into /auth/nats,
# /auth/guard and /auth/agent; guard-consumer reads /auth/guard.
COPY --chown=65532:65532 auth/ /auth/
USER 65532:65532
# /livez, /readyz, /metrics
EXPOSE 8280
ENTRYPOINT ["/guard-consumer"]
