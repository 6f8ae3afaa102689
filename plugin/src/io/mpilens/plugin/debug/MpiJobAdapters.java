package io.mpilens.plugin.debug;

import org.eclipse.core.runtime.Adapters;
import org.eclipse.core.runtime.IAdapterFactory;
import org.eclipse.debug.core.ILaunch;

/**
 * Adapts a launch, and every debug element and process of one, to its {@link MpiJob} (plugin.xml,
 * {@code org.eclipse.core.runtime.adapters}): an element asks its launch; an {@link MpiLaunch}
 * answers with the job it holds, and any other launch with a Java debug target (a <i>Remote Java
 * Application</i> on one rank, perhaps through a share) with a job made for it, which the views
 * keep while they follow it. Stateless: the jobs live in their launches and in the views.
 */
public final class MpiJobAdapters implements IAdapterFactory {
    @Override
    public <T> T getAdapter(Object adaptable, Class<T> type) {
        if (type != MpiJob.class) return null;
        ILaunch launch = MpiJob.launchOf(adaptable);
        if (launch == null) return null;
        if (launch != adaptable) return type.cast(Adapters.adapt(launch, MpiJob.class));
        return MpiJob.hasJavaTargets(launch) ? type.cast(new MpiJob(launch)) : null;
    }

    @Override
    public Class<?>[] getAdapterList() {
        return new Class<?>[] {MpiJob.class};
    }
}
