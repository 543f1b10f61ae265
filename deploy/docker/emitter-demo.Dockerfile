# The demo fleet of scripted agents, static, on nothing. Build it with
# deploy/build.sh; run it with --nats-url against a cluster guard-consumer
# guards.
FROM scratch
COPY bin/emitter-demo /emitter-demo
USER 65532:65532
ENTRYPOINT ["/emitter-demo"]
