/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "calibrate.h"
#include "log.h"
#include "manager-consolidation.h"
#include "manager-ops.h"
#include "manager-policy.h"

/* Returns 0 or -ENOPKG with e set. */
int manager_set_profile(Manager *m, const char *name, ErrorInfo *e) {
        int r = manager_policy_set_profile(m, name, e);

        if (r > 0)
                manager_consolidation_profile_changed(m);
        return r < 0 ? r : 0;
}

/* Returns 0, or -EDOM / -EBUSY / -EIO with e set. */
int manager_set_mode(Manager *m, const char *mode, ErrorInfo *e) {
        DaemonMode new;
        int r;

        if (daemon_mode_from_string(mode, &new) < 0)
                return errinfo_set(e, -EDOM, "Invalid mode \"%s\": use \"observe\" or \"enforce\"", mode);
        if (calibrator_running(m->calib.run))
                return errinfo_set(e, -EBUSY, "A calibration is running, try again when it has finished");
        if (new == DAEMON_MODE_OBSERVE && m->policy.mode != new) {
                r = manager_consolidation_release(m, e);
                if (r < 0)
                        return r;
        }
        return manager_policy_set_mode(m, new, e);
}

void manager_reload_profiles(Manager *m) {
        if (manager_policy_reload(m))
                manager_consolidation_profile_changed(m);
}
