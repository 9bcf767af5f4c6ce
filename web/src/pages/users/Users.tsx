import { ComingSoon } from '../common/ComingSoon';

export default function Page() {
  return <ComingSoon />;
}
