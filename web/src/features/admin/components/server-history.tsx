import { Alert, Chart, Skeleton } from '../../../ui';
import { useServerHistory } from '../api/get-server-history';
import { reportedText, serverHistoryCharts } from '../utils/server-history-charts';

/** A server's last 24 hours on its card (issue #26): CPU and memory, load, traffic, peers. */
export function ServerHistory({ serverId, serverName }: { serverId: string; serverName: string }) {
  const history = useServerHistory(serverId);
  if (history.isPending) return <Skeleton height={160} />;
  if (history.isError || !history.data)
    return <Alert tone="error">The last 24 hours of {serverName} could not be loaded. Try again in a moment.</Alert>;
  const charts = serverHistoryCharts(history.data);
  return (
    <section className="admin-server-history" aria-label={`${serverName}: last 24 hours`}>
      <p className="qw-small qw-muted">{reportedText(history.data.reported_share)}, in 5-minute steps.</p>
      {charts.map((chart) => (
        <figure key={chart.key} className="admin-server-history__chart">
          <figcaption className="qw-small admin-server-history__title">{chart.title}</figcaption>
          <Chart option={chart.option} label={`${serverName}, ${chart.label}`} height={150} />
        </figure>
      ))}
    </section>
  );
}
