package hub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// monitorHandler is the hub's health and metrics endpoint, our own small
// handler rather than nats-server's monitoring port: that port also
// lists every connection and subscription (connz, subsz) to anyone who
// can reach it, with no authentication; this one answers two questions
// only.
//
//	GET /healthz  200 {"status":"ok"} when the server and JetStream are
//	              up, 503 with nats-server's reason otherwise
//	GET /metrics  Prometheus text: connections, traffic, JetStream usage
func monitorHandler(srv *server.Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		st := srv.Healthz(&server.HealthzOptions{})
		w.Header().Set("Content-Type", "application/json")
		if st.StatusCode != 0 && st.StatusCode != http.StatusOK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(st)
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
		v, err := srv.Varz(nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		js, err := srv.Jsz(&server.JSzOptions{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		writeMetrics(w, v, js)
	})
	return mux
}

// writeMetrics writes the Prometheus text of the figures an operator
// watches on a hub: is it up, who is connected, how much flows, how much
// JetStream holds and how close it is to its limit.
func writeMetrics(w io.Writer, v *server.Varz, js *server.JSInfo) {
	metric := func(name, typ, help string, value any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %v\n", name, help, name, typ, name, value)
	}
	metric("daokit_hub_up", "gauge", "1 while the hub serves.", 1)
	metric("daokit_hub_uptime_seconds", "gauge", "Seconds since the hub started.", int64(v.Now.Sub(v.Start)/time.Second))
	metric("daokit_hub_connections", "gauge", "Clients connected now.", v.Connections)
	metric("daokit_hub_connections_total", "counter", "Clients connected since start.", v.TotalConnections)
	metric("daokit_hub_in_msgs_total", "counter", "Messages received.", v.InMsgs)
	metric("daokit_hub_out_msgs_total", "counter", "Messages sent.", v.OutMsgs)
	metric("daokit_hub_in_bytes_total", "counter", "Bytes received.", v.InBytes)
	metric("daokit_hub_out_bytes_total", "counter", "Bytes sent.", v.OutBytes)
	metric("daokit_hub_slow_consumers_total", "counter", "Clients dropped for reading too slowly.", v.SlowConsumers)
	metric("daokit_hub_memory_bytes", "gauge", "Resident memory of the hub process.", v.Mem)
	metric("daokit_hub_jetstream_streams", "gauge", "JetStream streams.", js.Streams)
	metric("daokit_hub_jetstream_consumers", "gauge", "JetStream consumers.", js.Consumers)
	metric("daokit_hub_jetstream_messages", "gauge", "Messages stored in JetStream.", js.Messages)
	metric("daokit_hub_jetstream_store_bytes", "gauge", "Bytes JetStream stores on disk.", js.Store)
	metric("daokit_hub_jetstream_store_limit_bytes", "gauge", "JetStream's limit on disk use.", js.Config.MaxStore)
	metric("daokit_hub_jetstream_api_errors_total", "counter", "JetStream API calls that failed.", js.API.Errors)
}
